import { AppError, type Caller } from '@kb/platform';
import { VISIBILITY_LEVELS } from '@kb/rules';
import type { ReadableBy } from '../data-access/entries-repo';
import type { TenantSettings } from './tenant-settings';

/** The ordered visibility levels, lowest first (docs/api.md, "Roles and visibility"); personal and workspace are handled apart. */
export const LEVELS = VISIBILITY_LEVELS;

const rank = (v: string): number => LEVELS.indexOf(v as (typeof LEVELS)[number]);

/** Personal entries belong to the user, or (tokens without a user) to the token. */
export function ownerKey(caller: Caller): string {
  return caller.user_id ? `user:${caller.user_id}` : `token:${caller.token_id}`;
}

export interface Viewer {
  caller: Caller;
  ceiling: string;
  levels: string[];
  workspacesEnabled: boolean;
  ownerKey: string;
  /** The entry types the caller's role may write (tenant setting role_writable_types). */
  writableTypes: string[];
}

/** The caller as the tenant's settings see it: visibility ceiling, workspaces, writable types. */
export function viewerOf(caller: Caller, settings: TenantSettings): Viewer {
  const ceiling = settings.role_visibility_ceilings[caller.role] ?? 'public';
  const levels = LEVELS.filter((l) => rank(l) <= rank(ceiling));
  const writableTypes = settings.role_writable_types[caller.role] ?? [];
  return {
    caller,
    ceiling,
    levels,
    workspacesEnabled: settings.workspaces_enabled,
    ownerKey: ownerKey(caller),
    writableTypes,
  };
}

/**
 * What a viewer may read (ceiling, personal ownership, workspaces), for the repository's reads.
 * With workspaces off, a workspace entry reads as internal.
 */
export function readableBy(v: Viewer): ReadableBy {
  const visibilities: string[] = [...v.levels];
  if (!v.workspacesEnabled && v.levels.includes('internal')) visibilities.push('workspace');
  return { visibilities, ownerKey: v.ownerKey, workspaceIds: v.workspacesEnabled ? v.caller.workspace_ids : null };
}

/** The same rule for one loaded entry or stored state (search hits, history, translations). */
export function canSee(
  v: Viewer,
  e: { visibility: string; owner_key: string | null; workspace_id: string | null },
): boolean {
  const by = readableBy(v);
  if (e.visibility === 'personal') return e.owner_key === by.ownerKey;
  if (e.visibility === 'workspace' && by.workspaceIds)
    return e.workspace_id !== null && by.workspaceIds.includes(e.workspace_id);
  return by.visibilities.includes(e.visibility);
}

const WORKSPACE_MEMBERS_ONLY = 'Workspace entries can only be written by members of that workspace';

/** 403 unless the viewer may write an entry with this visibility. */
export function assertMayWriteVisibility(v: Viewer, visibility: string, workspaceId: string | null): void {
  if (visibility === 'personal') return;
  if (visibility === 'workspace') {
    if (v.workspacesEnabled) {
      if (!workspaceId || !v.caller.workspace_ids.includes(workspaceId)) {
        throw AppError.forbidden(WORKSPACE_MEMBERS_ONLY);
      }
      return;
    }
    if (!v.levels.includes('internal'))
      throw AppError.forbidden(`Role ${v.caller.role} may not write visibility workspace`);
    return;
  }
  if (!v.levels.includes(visibility))
    throw AppError.forbidden(`Role ${v.caller.role} may not write visibility ${visibility}`);
}

/**
 * 403 unless the viewer is a member of the workspace an entry is put into. Whether or not
 * workspaces are enabled yet: once they are, an entry put into a foreign workspace would be
 * hidden from its writer's team and shown to another (an entry moved there by a PUT alike).
 */
export function assertMayNameWorkspace(v: Viewer, workspaceId: string | null | undefined): void {
  if (workspaceId && !v.caller.workspace_ids.includes(workspaceId)) {
    throw AppError.forbidden(WORKSPACE_MEMBERS_ONLY);
  }
}

/**
 * The lowest of a set of visibilities: the skill index is visible to whoever may read one of its
 * skills, and every read of it (skillIndexAsSeenBy) leaves out the skills the reader may not read.
 */
export function lowestLevel(visibilities: string[]): string {
  const ranks = visibilities.map((v) => rank(v === 'workspace' || v === 'personal' ? 'internal' : v));
  return ranks.length ? (LEVELS[Math.min(...ranks)] as string) : 'internal';
}

/** For the similarity service: the same rule as readableBy, in its contract's terms. */
export function searchFilter(v: Viewer) {
  const by = readableBy(v);
  return {
    visibilities: by.visibilities,
    owner_user_id: by.ownerKey,
    workspace_scoped: by.workspaceIds !== null,
    workspace_ids: by.workspaceIds ?? [],
  };
}
