import { AppError, knowledgeProto } from '@kb/platform';
import { ANSWER_BYTE_BUDGET, answerItemBytes } from '@kb/rules';
import {
  decodeCursor,
  decodeTranslationCursor,
  decodeVersionCursor,
  encodeCursor,
  encodeTranslationCursor,
  encodeVersionCursor,
  takePage,
} from '../src/domain/entries/paging';
import { entryMessage, entryVersionMessage } from '../src/grpc/mappers';
import { entry } from './support/fixtures';

async function* stream<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

describe('a page of an answer (takePage)', () => {
  const third = Math.floor(ANSWER_BYTE_BUDGET / 3);
  const shown = (n: number) => n;

  it('takes `limit` items when they fit, and says there is more when an item is left', async () => {
    const page = await takePage(stream([1, 2, 3, 4]), 3, shown, () => 10);
    expect(page).toEqual({ shown: [1, 2, 3], last: 3, more: true });
    expect(await takePage(stream([1, 2, 3]), 3, shown, () => 10)).toEqual({ shown: [1, 2, 3], last: 3, more: false });
  });

  it('ends the page early where the next item would pass the byte budget; the next page starts right after the last shown', async () => {
    const page = await takePage(stream([1, 2, 3, 4, 5]), 500, shown, () => third + 1);
    expect(page).toEqual({ shown: [1, 2], last: 2, more: true });
  });

  it('always shows the first item, however large', async () => {
    expect(await takePage(stream([1, 2]), 500, shown, () => 2 * ANSWER_BYTE_BUDGET)).toEqual({
      shown: [1],
      last: 1,
      more: true,
    });
  });

  it('passes over items the caller may not read, and moves the page on past them', async () => {
    const odd = (n: number) => (n % 2 === 1 ? n : null);
    expect(await takePage(stream([1, 2, 3, 4]), 4, odd, () => 10)).toEqual({ shown: [1, 3], last: 4, more: false });
    // Hidden items count towards the limit of items read, so a page is bounded in reads too.
    expect(await takePage(stream([2, 4, 6, 1]), 3, odd, () => 10)).toEqual({ shown: [], last: 6, more: true });
  });

  it('pages a list with its cursor so that every item comes exactly once', async () => {
    const all = Array.from({ length: 10 }, (_, i) => i);
    const seen: number[] = [];
    let after = -1;
    for (let more = true; more;) {
      const page = await takePage(stream(all.filter((n) => n > after)), 500, shown, () => third);
      seen.push(...page.shown);
      more = page.more;
      after = page.last ?? after;
    }
    expect(seen).toEqual(all);
  });
});

describe('cursors', () => {
  it('round-trip, and any other cursor is a 422 at ["query", "cursor"]', () => {
    const at = new Date('2026-11-26T01:00:00.000Z');
    expect(decodeCursor(encodeCursor({ updated_at: at, id: 'a' }))).toEqual({ updatedAt: at, id: 'a' });
    expect(decodeVersionCursor(encodeVersionCursor(7))).toBe(7);
    expect(decodeTranslationCursor(encodeTranslationCursor({ created_at: at, id: 'b' }))).toEqual({
      createdAt: at,
      id: 'b',
    });
    for (const bad of ['nonsense', encodeVersionCursor(7), Buffer.from('{}').toString('base64url')]) {
      let err: unknown;
      try {
        decodeCursor(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('invalid');
      expect((err as AppError).issues?.[0]?.loc).toEqual(['query', 'cursor']);
    }
    expect(() => decodeVersionCursor(encodeCursor({ updated_at: at, id: 'a' }))).toThrow(AppError);
    expect(() => decodeTranslationCursor(encodeVersionCursor(1))).toThrow(AppError);
  });
});

describe('what an item counts against the budget', () => {
  const service = knowledgeProto().kb.knowledge.v1.KnowledgeService.service;
  // Quotes, control characters and multi-byte text: JSON escapes them, protobuf does not.
  const nasty = entry({
    content: '"\u0001ü€\n'.repeat(2000),
    metadata: { quoted: '"'.repeat(5000), 'ü€': ['\\', null, 1.5] },
    tags: ['a', 'b'],
  });

  it('is at least the protobuf encoding of the message that carries it', () => {
    const message = entryMessage(nasty);
    const encoded = service.ListEntries.responseSerialize({ entries: [message] });
    expect(answerItemBytes(message)).toBeGreaterThanOrEqual(encoded.length);
    const version = entryVersionMessage({
      id: 'v',
      tenant_id: 't',
      entry_id: nasty.id,
      version: 1,
      action: 'create',
      changed_at: new Date(),
      changed_by_user_id: null,
      audit_source: 'api',
      client_id: null,
      snapshot: nasty as unknown as Record<string, unknown>,
    } as never);
    expect(answerItemBytes(version)).toBeGreaterThanOrEqual(
      service.ListEntryVersions.responseSerialize({ versions: [version] }).length,
    );
  });
});
