/**
 * The knowledge entries' vocabulary, once: what the gateway validates and publishes (OpenAPI)
 * and what the knowledge service decides with. The order of each list is the published one.
 */

/** Entry types; `skill_index` is written by the knowledge service itself (the skill index), never by a client. */
export const ENTRY_TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index'] as const;

/** The types a role may be allowed to write (tenant setting role_writable_types). */
export const WRITABLE_ENTRY_TYPES = ENTRY_TYPES.filter(
  (t): t is Exclude<(typeof ENTRY_TYPES)[number], 'skill_index'> => t !== 'skill_index',
);

export const VISIBILITIES = ['public', 'internal', 'personal', 'restricted', 'community', 'workspace'] as const;

/**
 * The ordered visibility levels, lowest first: a role's ceiling is one of them and it reads
 * every level up to it. Personal and workspace stand apart (ownership, workspace membership).
 */
export const VISIBILITY_LEVELS = ['public', 'community', 'internal', 'restricted'] as const;

/** Where an entry came from. */
export const ENTRY_SOURCES = ['manual', 'import', 'conversational', 'learning_loop', 'system'] as const;

/** A new entry's type and source when the request does not say. */
export const DEFAULT_ENTRY_TYPE = 'knowledge';
export const DEFAULT_ENTRY_SOURCE = 'manual';

/** The language of an entry or a site when the request does not name one. */
export const DEFAULT_LANGUAGE = 'de';
