import { contentRange } from '../src/http/mcp/tools';

describe('a part of an entry read through MCP (get_knowledge_entry with start and end)', () => {
  const content = 'ab😀cd'; // the emoji is two UTF-16 code units, at 2 and 3

  test('when the offsets lie inside the content, then they are kept', () => {
    expect(contentRange(content, 1, 4)).toEqual({ start: 1, end: 4, length: 6 });
    expect(content.slice(1, 4)).toBe('b😀');
  });

  test('when an offset falls inside a surrogate pair, then it moves before the character, never halving it', () => {
    const range = contentRange(content, 3, 3);
    expect(range).toEqual({ start: 2, end: 2, length: 6 });
    const cutAtEnd = contentRange(content, 0, 3);
    expect(content.slice(cutAtEnd.start, cutAtEnd.end)).toBe('ab');
  });

  test('when the offsets lie past the content, then they are clamped to its length', () => {
    expect(contentRange(content, 4, 1e9)).toEqual({ start: 4, end: 6, length: 6 });
    expect(contentRange(content, 50, 60)).toEqual({ start: 6, end: 6, length: 6 });
  });
});
