/* eslint-disable max-len -- demo prose: one paragraph per line, as Markdown keeps it (prettier cannot wrap strings) */
import type { DemoNote } from '../types';

/** Personal notes of the demo user (the user of the token npm start prints); only that user sees them. */
export const DEMO_NOTES: DemoNote[] = [
  {
    key: 'note-callback',
    category: 'service',
    language: 'en',
    title: 'Call back Mrs Berger about the Fjellstad tent pole',
    content:
      'Order 10-48213: a pole section of the Fjellstad Polar 3 arrived bent. Replacement section ordered from the workshop; call her back on Thursday with the shipping date.',
    tags: ['todo'],
  },
  {
    key: 'note-shortcuts',
    category: 'start',
    language: 'en',
    title: 'My shortcuts for the chat',
    content:
      '- Returns question: quote the tried-outdoors promise first, that is what people want to know.\n- Boot sizes: always ask for a boot that fits well, not the sneaker size.\n- Gas cartridges: separate parcel, road only.',
    tags: ['tips'],
  },
  {
    key: 'note-workshop',
    category: 'advice',
    language: 'de',
    title: 'Workshop Kartenlesen im März vorbereiten',
    content:
      'Karten 1:25.000 für den Herzogstand bestellen, zehn Kompasse aus dem Verleih reservieren, Raum im Münchner Laden für Samstag 10 Uhr buchen.',
    tags: ['todo', 'club'],
  },
];
