import { AppError } from '@kb/platform';
import type { SitesRepo } from '../src/data-access/sites-repo';
import type { SiteView } from '../src/domain/types';
import { createSite, listSites, siteChanges, updateSite } from '../src/domain/sites';
import { callerWith } from './support';

const SITE_ID = '22222222-2222-4222-8222-222222222222';
const site = (over: Partial<SiteView> = {}): SiteView => ({
  id: SITE_ID,
  tenant_id: 't1',
  slug: 'shop',
  name: 'Shop',
  domain: 'shop.example',
  language: 'de',
  site_type: 'shop',
  platform: 'shopify',
  config: {},
  created_at: new Date(),
  is_default: true,
  ...over,
});
const update = (over: Record<string, unknown>) =>
  ({ site_id: SITE_ID, clear_domain: false, clear_platform: false, ...over }) as Parameters<typeof siteChanges>[0];

/** A sites repo where only the given methods work; any other call fails the test. */
const fakeSites = (methods: Partial<Record<keyof SitesRepo, unknown>>) =>
  new Proxy(methods, {
    get: (t, k) =>
      k in t
        ? t[k as keyof SitesRepo]
        : () => {
            throw new Error(`unexpected call ${String(k)}`);
          },
  }) as unknown as SitesRepo;

const rejectsWith = async (p: Promise<unknown>, kind: string) => {
  await expect(p).rejects.toBeInstanceOf(AppError);
  await expect(p).rejects.toMatchObject({ kind });
};

describe('site rules', () => {
  test('when domain and platform are cleared, then only those two become null', () => {
    expect(siteChanges(update({ clear_domain: true, clear_platform: true }))).toEqual({ domain: null, platform: null });
  });

  test('when nothing is sent, then nothing changes', () => {
    expect(siteChanges(update({}))).toEqual({});
  });

  test('when a slug comes with an update, then it is not among the changes (the slug is immutable)', () => {
    expect(siteChanges(update({ slug: 'other', name: 'New' }))).toEqual({ name: 'New' });
  });

  test('when a domain is sent along with clear_domain, then the sent domain wins', () => {
    expect(siteChanges(update({ domain: 'x.example', clear_domain: true }))).toEqual({ domain: 'x.example' });
  });

  test('when the default site is told is_default false, then it is a conflict and nothing is written', async () => {
    const sites = fakeSites({ find: async () => site({ is_default: true }) });
    await rejectsWith(updateSite({ sites }, callerWith('knowledge:write'), update({ is_default: false })), 'conflict');
  });

  test('when the site id is a slug, then an update does not find it', async () => {
    const sites = fakeSites({});
    await rejectsWith(updateSite({ sites }, callerWith('knowledge:write'), update({ site_id: 'shop' })), 'not_found');
  });

  test('when the slug looks like a uuid, then the site is refused before any write', async () => {
    const sites = fakeSites({});
    const req = {
      slug: SITE_ID,
      name: 'x',
      language: 'de',
      site_type: 'shop',
      config_json: '',
      is_default: false,
    } as Parameters<typeof createSite>[2];
    await rejectsWith(createSite({ sites }, callerWith('knowledge:write'), req), 'invalid');
  });

  test('when a caller sends config that is not JSON or not an object, then it is a 422 on config and nothing is written', async () => {
    const sites = fakeSites({
      insert: async () => {
        throw new Error('must not write');
      },
    });
    for (const config_json of ['{not json', '[1, 2]']) {
      const req = {
        slug: 'shop',
        name: 'x',
        language: 'de',
        site_type: 'shop',
        config_json,
        is_default: false,
      } as Parameters<typeof createSite>[2];
      await expect(createSite({ sites }, callerWith('knowledge:write'), req)).rejects.toMatchObject({
        kind: 'invalid',
        issues: [{ loc: ['body', 'config'], type: 'dict_type' }],
      });
    }
  });

  test('when the slug is taken, then creating the site is a conflict naming the slug', async () => {
    const sites = fakeSites({ insert: async () => false });
    const req = {
      slug: 'shop',
      name: 'x',
      language: 'de',
      site_type: 'shop',
      config_json: '',
      is_default: false,
    } as Parameters<typeof createSite>[2];
    await expect(createSite({ sites }, callerWith('knowledge:write'), req)).rejects.toMatchObject({
      kind: 'conflict',
      message: 'A site with slug "shop" already exists',
    });
  });

  test('when the caller lacks knowledge:read, then listing sites is forbidden without a query', async () => {
    await rejectsWith(listSites({ sites: fakeSites({}) }, callerWith('knowledge:write')), 'forbidden');
  });

  test('when the caller lacks knowledge:write, then creating a site is forbidden', async () => {
    const req = {
      slug: 'shop',
      name: 'x',
      language: 'de',
      site_type: 'shop',
      config_json: '',
      is_default: false,
    } as Parameters<typeof createSite>[2];
    await rejectsWith(createSite({ sites: fakeSites({}) }, callerWith('knowledge:read'), req), 'forbidden');
  });
});
