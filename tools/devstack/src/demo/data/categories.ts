import type { DemoCategory } from '../types';

/** The category tree of the demo shop (parents before children). */
export const DEMO_CATEGORIES: DemoCategory[] = [
  {
    key: 'start',
    name: 'Getting started',
    description: 'How the assistant of the Trailhead Outfitters shop is set up',
    sort_order: 0,
  },
  { key: 'service', name: 'Customer service', description: 'Orders, delivery, returns and payment', sort_order: 1 },
  { key: 'orders', name: 'Orders & delivery', description: 'Shipping, tracking, click & collect', parent: 'service' },
  {
    key: 'returns',
    name: 'Returns & warranty',
    description: 'Returns, refunds, repairs and claims',
    parent: 'service',
  },
  { key: 'advice', name: 'Gear advice', description: 'Buying guides and care instructions', sort_order: 2 },
  { key: 'shelter', name: 'Tents & sleeping', description: 'Tents, sleeping bags and mats', parent: 'advice' },
  { key: 'footwear', name: 'Footwear', description: 'Hiking boots and trail shoes', parent: 'advice' },
  { key: 'glossary', name: 'Glossary', description: 'Outdoor terms explained', parent: 'advice' },
  { key: 'team', name: 'Team handbook', description: 'For staff: policies, escalations, procedures', sort_order: 3 },
  { key: 'procedures', name: 'Procedures', description: 'Step-by-step processes for the service team', parent: 'team' },
];
