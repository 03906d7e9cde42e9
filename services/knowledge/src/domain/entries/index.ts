import type { Caller } from '@kb/platform';
import { assignSite, forgetSite } from './assign-site';
import { entryContext, type EntryDeps } from './context';
import { createEntry } from './create';
import { getEntry } from './get';
import type { EntryInput } from './input';
import { listEntries, type EntryListRequest } from './list';
import { removeEntry } from './remove';
import { searchEntries, type EntrySearchRequest, type EntrySearchHit } from './search';
import { entrySearchAccess } from './search-access';
import type { ItemBytes } from './paging';
import { entryTranslations, type TranslationMember, type TranslationsPage } from './translations';
import { updateEntry } from './update';
import { entryVersions, type VersionsPage } from './versions';
import type { Entry, EntryVersion } from '../types';

export type { EntryDeps } from './context';
export type { EntryInput } from './input';
export type { EntryListRequest } from './list';
export type { EntrySearchHit, EntrySearchRequest } from './search';
export type { TranslationMember, TranslationsPage } from './translations';
export type { VersionsPage } from './versions';
export type { ItemBytes } from './paging';

type CallerIn = Caller | null | undefined;

/** The entry use cases, one file each, bound to one shared context (dependencies and the skill-index queue). */
export function entryUseCases(deps: EntryDeps) {
  const ctx = entryContext(deps);
  return {
    create: (caller: CallerIn, input: EntryInput, personal: boolean) => createEntry(ctx, caller, input, personal),
    update: (caller: CallerIn, id: string, input: EntryInput, expectedVersion: number | undefined) =>
      updateEntry(ctx, caller, id, input, expectedVersion),
    get: (caller: CallerIn, id: string) => getEntry(ctx, caller, id),
    remove: (caller: CallerIn, id: string, expectedVersion: number | undefined) =>
      removeEntry(ctx, caller, id, expectedVersion),
    list: (caller: CallerIn, req: EntryListRequest, bytes: ItemBytes<Entry>) => listEntries(ctx, caller, req, bytes),
    versions: (caller: CallerIn, id: string, page: VersionsPage, bytes: ItemBytes<EntryVersion>) =>
      entryVersions(ctx, caller, id, page, bytes),
    translations: (caller: CallerIn, id: string, page: TranslationsPage, bytes: ItemBytes<TranslationMember>) =>
      entryTranslations(ctx, caller, id, page, bytes),
    search: (caller: CallerIn, req: EntrySearchRequest, bytes: ItemBytes<EntrySearchHit>) =>
      searchEntries(ctx, caller, req, bytes),
    searchAccess: (caller: CallerIn, ids: string[]) => entrySearchAccess(ctx, caller, ids),
    assignSite: (caller: CallerIn, siteId: string, ids: string[]) => assignSite(ctx, caller, siteId, ids),
    forgetSite: (caller: CallerIn, siteId: string) => forgetSite(ctx, caller, siteId),
  };
}
export type EntryUseCases = ReturnType<typeof entryUseCases>;
