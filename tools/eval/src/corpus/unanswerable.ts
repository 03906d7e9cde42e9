/**
 * Questions an assistant of the shop could be asked that no entry answers: near the shop's world
 * (stores, services, staff), but about nothing any entry's facts or filler cover.
 */
import type { Unanswerable } from './types';

const en = (slug: string, question: string): Unanswerable => ({ slug: `none-en-${slug}`, language: 'en', question });
const de = (slug: string, question: string): Unanswerable => ({ slug: `none-de-${slug}`, language: 'de', question });

export const UNANSWERABLE: Unanswerable[] = [
  en('dogs', 'Can I bring my dog into the store?'),
  en('jobs', 'Are you hiring warehouse staff at the moment?'),
  en('wifi', 'Is there free Wi-Fi in your shops?'),
  en('trees', 'Do you plant a tree for every order?'),
  en('rental', 'Can I rent a camera for a weekend?'),
  en('mulled-wine', 'Do you have a recipe for mulled wine?'),
  en('cooking', 'Do you run cooking classes?'),
  en('tailoring', 'Can you shorten trousers that I bought from you?'),
  en('bug-bounty', 'Is there a bug bounty programme for your website?'),
  en('travel-insurance', 'Do you sell travel insurance?'),
  en('ceo', 'Who is the chief executive of the company?'),
  en('personal-shopper', 'Can I book an appointment with a personal shopper?'),
  en('photo-printing', 'Do you print photos from my phone?'),
  en('clothes-donation', 'Can I drop off old clothes for charity at your branches?'),
  de('hunde', 'Darf ich meinen Hund mit in die Filiale nehmen?'),
  de('kochkurse', 'Bietet ihr Kochkurse an?'),
  de('ausbildung', 'Wie bewerbe ich mich für eine Ausbildung bei euch?'),
  de('leasing', 'Kann ich bei euch ein Auto leasen?'),
  de('wlan', 'Gibt es in euren Filialen kostenloses WLAN?'),
  de('fahrrad', 'Repariert ihr auch Fahrräder?'),
];
