import { AppError, type Caller } from '@kb/common';
import type { TenantSettings } from './tenant-settings';

/** The ordered visibility levels, lowest first (README.md, "Roles and visibility"); personal and workspace are handled apart. */
export const LEVELS = ['public', 'community', 'internal', 'restricted'] as const;

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
}

export function viewerOf(caller: Caller, settings: TenantSettings): Viewer {
  const ceiling = settings.role_visibility_ceilings[caller.role] ?? 'public';
  const levels = LEVELS.filter((l) => rank(l) <= rank(ceiling));
  return { caller, ceiling, levels, workspacesEnabled: settings.workspaces_enabled, ownerKey: ownerKey(caller) };
}

/** The MongoDB filter of what a viewer may read (ceiling, personal ownership, workspaces). */
export function visibilityFilter(v: Viewer): Record<string, unknown> {
  const or: Record<string, unknown>[] = [{ visibility: { $in: v.levels } }, { visibility: 'personal', owner_key: v.ownerKey }];
  if (v.workspacesEnabled) or.push({ visibility: 'workspace', workspace_id: { $in: v.caller.workspace_ids } });
  else if (v.levels.includes('internal')) or.push({ visibility: 'workspace' });
  return { $or: or };
}

/** The same rule for one loaded entry (used to re-check search hits and single reads). */
export function canSee(v: Viewer, e: { visibility: string; owner_key: string | null; workspace_id: string | null }): boolean {
  if (e.visibility === 'personal') return e.owner_key === v.ownerKey;
  if (e.visibility === 'workspace') {
    return v.workspacesEnabled ? e.workspace_id !== null && v.caller.workspace_ids.includes(e.workspace_id) : v.levels.includes('internal');
  }
  return v.levels.includes(e.visibility);
}

/** 403 unless the viewer may write an entry with this visibility. */
export function assertMayWriteVisibility(v: Viewer, visibility: string, workspaceId: string | null): void {
  if (visibility === 'personal') return;
  if (visibility === 'workspace') {
    if (v.workspacesEnabled) {
      if (!workspaceId || !v.caller.workspace_ids.includes(workspaceId)) {
        throw AppError.forbidden('Workspace entries can only be written by members of that workspace');
      }
      return;
    }
    if (!v.levels.includes('internal')) throw AppError.forbidden(`Role ${v.caller.role} may not write visibility workspace`);
    return;
  }
  if (!v.levels.includes(visibility)) throw AppError.forbidden(`Role ${v.caller.role} may not write visibility ${visibility}`);
}

/** The highest of a set of visibilities (the skill index is never more visible than its skills). */
export function highestLevel(visibilities: string[]): string {
  let best = -1;
  for (const v of visibilities) best = Math.max(best, rank(v === 'workspace' || v === 'personal' ? 'internal' : v));
  return best < 0 ? 'internal' : (LEVELS[best] as string);
}

/** For the similarity service: the same filter, in its contract's terms. */
export function searchFilter(v: Viewer) {
  const visibilities = [...v.levels];
  if (!v.workspacesEnabled && v.levels.includes('internal')) visibilities.push('workspace');
  return {
    visibilities,
    owner_user_id: v.ownerKey,
    workspace_scoped: v.workspacesEnabled,
    workspace_ids: v.workspacesEnabled ? v.caller.workspace_ids : [],
  };
}
