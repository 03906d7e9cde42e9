import type { Caller } from '@kb/common';
import { assignSite, forgetSite } from './assign-site';
import { entryContext, type EntryDeps } from './context';
import { createEntry } from './create';
import { getEntry } from './get';
import type { EntryInput } from './input';
import { listEntries, type EntryListRequest } from './list';
import { removeEntry } from './remove';
import { searchEntries, type EntrySearchRequest } from './search';
import { entryTranslations } from './translations';
import { updateEntry } from './update';
import { entryVersions } from './versions';

export type { EntryDeps } from './context';
export type { EntryInput } from './input';
export type { EntryListRequest } from './list';
export type { EntrySearchRequest } from './search';
export type { TranslationMember } from './translations';

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
    list: (caller: CallerIn, req: EntryListRequest) => listEntries(ctx, caller, req),
    versions: (caller: CallerIn, id: string) => entryVersions(ctx, caller, id),
    translations: (caller: CallerIn, id: string) => entryTranslations(ctx, caller, id),
    search: (caller: CallerIn, req: EntrySearchRequest) => searchEntries(ctx, caller, req),
    assignSite: (caller: CallerIn, siteId: string, ids: string[]) => assignSite(ctx, caller, siteId, ids),
    forgetSite: (caller: CallerIn, siteId: string) => forgetSite(ctx, caller, siteId),
  };
}
export type EntryUseCases = ReturnType<typeof entryUseCases>;
