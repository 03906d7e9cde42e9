/**
 * A third wording of every planted fact: the question as a customer who knows what the shop calls
 * things asks it. It names its subject (usually in the entry's words: "standard delivery",
 * "gift card", "Ratenzahlung") and asks for the fact in its own words, without the fact's key span.
 * Between the paraphrases (entries-en.ts, entries-de.ts: at most two content words shared with the
 * fact) and the facts' own words (the key span as the question). Written once, in one sitting,
 * before any run of them; a third check on settings, never the only one (docs/eval.md,
 * "Questions that name their subject").
 */
import type { Position } from './types';

type Three = [start: string, middle: string, end: string];

const EN: Record<string, Three> = {
  'en-standard-delivery': [
    'How many days does standard delivery take?',
    'Until what time can I order for my parcel to be shipped the same day?',
    'When is standard delivery free?',
  ],
  'en-express-shipping': [
    'If I order express in the morning, when will it arrive?',
    'Do I get the express fee back if the parcel comes late?',
    'Can I use express shipping to an island address?',
  ],
  'en-international-shipping': [
    'Which countries do you ship to?',
    'Who pays customs duties on a parcel to Switzerland?',
    'Do I need to prepare customs paperwork for a parcel going outside the EU?',
  ],
  'en-bulky-delivery': [
    'How are very heavy items like furniture delivered?',
    'Will the furniture delivery company tell me when they are coming?',
    'Can the delivery team bring the sofa inside and take the boxes away?',
  ],
  'en-returns-policy': [
    'How many days do I have to return an item?',
    'How long does it take to get my money back after a return?',
    'Can I return a swimsuit?',
  ],
  'en-electronics-returns': [
    'What do I have to do with my laptop before returning it?',
    'Can I return a video game I have opened?',
    'What happens if I return a phone without its charger?',
  ],
  'en-sale-items': [
    'How long do I have to return something from the clearance outlet?',
    'The price went down right after I ordered. Can I get the difference back?',
    'Can I return a final sale item?',
  ],
  'en-exchanges': [
    'When do you send the new size in an exchange?',
    'Do I have to pay for a second exchange?',
    'Can I exchange a jacket for a completely different product?',
  ],
  'en-card-payments': [
    'Which credit cards do you accept?',
    'When is my card actually charged for an order?',
    'I cancelled my order. When will the blocked amount on my card be released?',
  ],
  'en-pay-later': [
    'When do I have to pay with pay later, and is there interest?',
    'What basket sizes can I pay in instalments?',
    'What happens if I miss an instalment payment?',
  ],
  'en-bank-transfer': [
    'How long do you wait for my bank transfer before cancelling the order?',
    'What should I write as the reference on my bank transfer?',
    'Is there a discount for paying in advance?',
  ],
  'en-digital-wallets': [
    'Can I use Apple Pay in Chrome?',
    'How quickly do I get a PayPal refund?',
    'Can I pay with Google Pay and a gift card together?',
  ],
  'en-wine-delivery': [
    'What do I need to show when my wine delivery arrives?',
    'Can the courier leave my wine with a neighbour?',
    'Can wine be sent to a parcel locker?',
  ],
  'en-wine-club': [
    'How often does the wine club send bottles, and how many?',
    'Can I skip a wine club delivery?',
    'What if I do not like a bottle in my wine club case?',
  ],
  'en-wine-weather': [
    'Do you ship wine during a heatwave?',
    'How is wine packed so the bottles do not break?',
    'What do I do if a wine bottle arrives broken?',
  ],
  'en-wine-gifts': [
    'Can I add a personal message to a wine gift?',
    'Will the recipient of my wine gift see the price?',
    'Can I choose the delivery date for a wine gift?',
  ],
  'en-warranty': [
    'How long is the legal guarantee on products?',
    'Do I have to prove a defect was there from the beginning?',
    'Is water damage covered by the guarantee?',
  ],
  'en-extended-warranty': [
    'Can I buy an extended warranty after my purchase?',
    'Does the extended warranty plan cover accidental damage?',
    'Can I cancel my extended warranty plan and get money back?',
  ],
  'en-refurbished': [
    'What warranty do refurbished devices have?',
    'How good is the battery in a refurbished phone?',
    'Can I make a warranty claim for scratches on a refurbished device?',
  ],
  'en-warranty-claims': [
    'How do I start a warranty claim?',
    'How long does a warranty repair take?',
    'The same fault keeps coming back after repairs. Can I get a new one instead?',
  ],
  'en-licence-activation': [
    'Where do I find my software licence key after buying?',
    'Do I need to be online to use the software after activation?',
    'My licence key says it has already been used. What can I do?',
  ],
  'en-licence-transfer': [
    'On how many computers can I install a single-user licence?',
    'How do I move my licence to a new computer?',
    'Can I give my licence to a friend?',
  ],
  'en-volume-licences': [
    'How many seats do I need for volume pricing?',
    'Is there an education discount for schools?',
    'Can I move a licence seat from one employee to another?',
  ],
  'en-software-subscriptions': [
    'Does my software subscription renew automatically?',
    'Can I get a refund if I cancel right after my subscription renewed?',
    'Can I still open my files after my subscription ends?',
  ],
  'en-loyalty-earning': [
    'How many loyalty points do I earn per euro?',
    'When do loyalty points show up in my account?',
    'Do I earn loyalty points on shipping costs?',
  ],
  'en-loyalty-redeeming': [
    'How much are my loyalty points worth when I redeem them?',
    'Can I pay for my whole order with points?',
    'What happens to my points if I return an order I used them on?',
  ],
  'en-membership-tiers': [
    'How do I reach Gold membership status?',
    'What benefits do Gold members get on shipping?',
    'Do I lose my membership tier if I spend less next year?',
  ],
  'en-points-expiry': [
    'When do my loyalty points expire?',
    'How can I stop my points from expiring?',
    'Can I get my points paid out if I leave the loyalty programme?',
  ],
  'en-click-and-collect': [
    'How soon can I pick up a click and collect order?',
    'How long will the store keep my click and collect order?',
    'What do I need to bring to collect my click and collect order?',
  ],
  'en-parcel-lockers': [
    'What is the maximum parcel size for a locker?',
    'How long can I wait before picking up my parcel from the locker?',
    'The locker screen is broken. How do I get my parcel out?',
  ],
  'en-curbside-pickup': [
    'Which stores offer curbside pickup?',
    'How does curbside pickup work when I arrive at the store?',
    'Can I pay at curbside pickup?',
  ],
  'en-collection-by-others': [
    'Can someone else pick up my order for me?',
    'Can my friend collect an expensive order for me?',
    'Is there a minimum age for collecting an order for someone else?',
  ],
  'en-gift-cards': [
    'What amounts can I choose for a gift card?',
    'Can I buy a gift card with loyalty points?',
    'Does it cost anything to post a physical gift card?',
  ],
  'en-gift-card-balance': [
    'How long is a gift card valid?',
    'How do I check my gift card balance?',
    'Can I get the rest of my gift card balance in cash?',
  ],
  'en-corporate-gift-cards': [
    'Can we get gift cards with our company logo?',
    'How does payment work for corporate gift card orders?',
    'When can the employees start using our corporate gift cards?',
  ],
  'en-e-gift-cards': [
    'How long does it take for an e-gift card to arrive?',
    'The recipient lost the e-gift card email. Can you resend it?',
    'Someone stole my e-gift card. Can you block it?',
  ],
  'en-b2b-payment-terms': [
    'What are the payment terms for business invoices?',
    'What is the credit limit for a new business account?',
    'What happens to my business orders if an invoice is overdue?',
  ],
  'en-vat-exemption': [
    'Can my company in France buy without VAT?',
    'How do you check my VAT number?',
    'How does a charity prove its tax exemption?',
  ],
  'en-invoice-corrections': [
    'Can you change the address on an invoice you already sent?',
    'How long do I have to ask for an invoice correction?',
    'What happens to the money on a credit note?',
  ],
  'en-purchase-orders': [
    'Can you put our purchase order number on the invoice?',
    'Do you support e-invoicing formats for public authorities?',
    'Can I get one invoice per month for all our orders?',
  ],
  'en-order-cancellation': [
    'Until when can I cancel my order?',
    'My order has already shipped. How do I cancel it?',
    'Can I cancel a pre-order?',
  ],
  'en-address-changes': [
    'Can I still change the delivery address of my order?',
    'My parcel is on its way. Can I send it to a different address?',
    'Why can I not change the address of an order paid by invoice?',
  ],
  'en-combining-orders': [
    'Can I add an item to an order I already placed?',
    'Will two orders I placed today be shipped together?',
    'Do I pay shipping twice if two orders are combined into one delivery?',
  ],
  'en-back-orders': [
    'Do I pay extra shipping for a back-ordered item sent later?',
    'What happens if my back-ordered item is delayed for a long time?',
    'Can I swap a back-ordered item for something that is in stock?',
  ],
  'en-account-deletion': [
    'How do I delete my customer account?',
    'Will my order history be deleted with my account?',
    'Why can I not delete my account right now?',
  ],
  'en-login': [
    'How long is the password reset link valid?',
    'My account is locked after too many login attempts. How long for?',
    'How do I turn on two-factor authentication?',
  ],
  'en-data-export': [
    'How do I get a copy of my personal data?',
    'How long can I download my data export?',
    'What is included in my personal data export?',
  ],
  'en-marketing-preferences': [
    'How long does it take to unsubscribe from the newsletter?',
    'Can I turn off personalised recommendations but keep the newsletter?',
    'Do you sell my email address to other companies?',
  ],
  'en-price-match': [
    'Do you match a lower price from another online shop?',
    'Does the price match include marketplace sellers?',
    'Can I get a price match after I have ordered?',
  ],
  'en-discount-codes': [
    'Can I use two discount codes on one order?',
    'Can I use an influencer discount code on my second order?',
    'What happens to my discount code if I return part of the order?',
  ],
  'en-student-discount': [
    'How do students get a discount?',
    'Is there a senior discount?',
    'Does the student discount work on an iPad?',
  ],
  'en-bundle-offers': [
    'How is the discount in a bundle split between the items?',
    'What happens if I return one item from a bundle?',
    'In a buy three pay two offer, which item is free?',
  ],
};

const DE: Record<string, Three> = {
  'de-standardversand': [
    'Wie lange dauert der Standardversand?',
    'Ab welchem Bestellwert ist der Versand kostenlos?',
    'Kann ich mit Standardversand an eine Packstation liefern lassen?',
  ],
  'de-expressversand': [
    'Bis wann muss ich eine Expressbestellung aufgeben, damit sie morgen ankommt?',
    'Was kostet der Expressversand zusätzlich?',
    'Gibt es Expressversand am Samstag?',
  ],
  'de-auslandsversand': [
    'In welche Länder versendet ihr?',
    'Wer zahlt den Zoll bei einer Lieferung in die Schweiz?',
    'Wie lange dauert der Versand ins Ausland?',
  ],
  'de-rueckgabe': [
    'Wie lange habe ich Zeit für eine Rückgabe?',
    'Wo bekomme ich ein Rücksendeetikett?',
    'Wann bekomme ich nach dem Widerruf mein Geld zurück?',
  ],
  'de-umtausch': [
    'Kostet ein Umtausch in eine andere Größe etwas?',
    'Kann ich reduzierte Artikel umtauschen?',
    'Kann ich eine Online-Bestellung im Laden umtauschen?',
  ],
  'de-elektrogeraete': [
    'Was muss ich vor der Rücksendung eines Handys tun?',
    'Nehmt ihr mein altes Elektrogerät zurück?',
    'Was passiert, wenn beim zurückgeschickten Gerät Zubehör fehlt?',
  ],
  'de-rechnungskauf': [
    'Wann muss ich beim Kauf auf Rechnung bezahlen?',
    'Bis zu welchem Betrag kann ich auf Rechnung kaufen?',
    'Kostet eine Mahnung beim Rechnungskauf Gebühren?',
  ],
  'de-ratenzahlung': [
    'Ab welchem Betrag ist Ratenzahlung möglich?',
    'Kann ich bei der Ratenzahlung den Rest früher zurückzahlen?',
    'Wie lange dauert die Prüfung für die Ratenzahlung?',
  ],
  'de-lastschrift': [
    'Wann wird das Geld per Lastschrift abgebucht?',
    'Was kostet es, wenn eine Lastschrift platzt?',
    'Wie kann ich mein SEPA-Mandat widerrufen?',
  ],
  'de-weinlieferung': [
    'Was muss ich bei der Weinlieferung vorzeigen?',
    'Darf der Bote meinen Wein beim Nachbarn lassen?',
    'Ab wie vielen Flaschen ist der Weinversand kostenlos?',
  ],
  'de-weinabo': [
    'Wie oft kommt eine Lieferung im Weinabo?',
    'Kann ich eine Lieferung des Weinabos pausieren?',
    'Wie kann ich das Weinabo kündigen?',
  ],
  'de-gewaehrleistung': [
    'Wie lange gilt die Gewährleistung?',
    'Wo mache ich die Herstellergarantie geltend?',
    'Sind Wasserschäden von der Gewährleistung gedeckt?',
  ],
  'de-garantieverlaengerung': [
    'Bis wann kann ich eine Garantieverlängerung abschließen?',
    'Wie hoch ist die Selbstbeteiligung bei der Garantieverlängerung?',
    'Was passiert mit der Garantieverlängerung, wenn mein Gerät ausgetauscht wird?',
  ],
  'de-geschenkgutscheine': [
    'Wie lange ist ein Geschenkgutschein gültig?',
    'Was passiert mit dem restlichen Guthaben auf meinem Gutschein?',
    'Kann ich mir einen Gutschein bar auszahlen lassen?',
  ],
  'de-abholung': [
    'Wann kann ich meine Bestellung in der Filiale abholen?',
    'Wie lange wird meine Bestellung in der Filiale aufbewahrt?',
    'Was muss ich zur Abholung in der Filiale mitbringen?',
  ],
};

/** The topical question of each planted fact, by `${entry slug}#${position}`. */
export const TOPICAL_QUESTIONS: ReadonlyMap<string, string> = new Map(
  Object.entries({ ...EN, ...DE }).flatMap(([slug, three]) =>
    (['start', 'middle', 'end'] as Position[]).map((position, i): [string, string] => [
      `${slug}#${position}`,
      three[i]!,
    ]),
  ),
);
