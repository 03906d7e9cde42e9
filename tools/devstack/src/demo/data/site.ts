/** The demo shop's site (POST /sites body); found again by its slug. */
export const DEMO_SITE = {
  slug: 'outdoor-shop',
  name: 'Trailhead Outfitters',
  domain: 'shop.trailhead.example',
  language: 'en',
  site_type: 'shop',
  platform: 'demo',
  config: { languages: ['en', 'de'], currency: 'EUR' },
};
