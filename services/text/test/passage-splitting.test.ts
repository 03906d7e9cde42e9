import fc from 'fast-check';
import { cutPassages, MAX_PASSAGE_CHARS, Passage, sentencesOf, splitPassages } from '../src/passages';

/** What every split must hold: exact slices, the limit, trimmed edges, order, and full coverage. */
function expectValidPassages(content: string, passages: Passage[], maxChars = MAX_PASSAGE_CHARS): void {
  const problems: string[] = [];
  const covered = new Int32Array(content.length + 1);
  let previous: Passage | undefined;
  for (const [i, p] of passages.entries()) {
    if (p.text !== content.slice(p.start, p.end)) problems.push(`#${i}: text is not content.slice(start, end)`);
    if (p.end - p.start > maxChars) problems.push(`#${i}: ${p.end - p.start} characters`);
    if (p.end <= p.start) problems.push(`#${i}: empty`);
    if (/^\s|\s$/.test(p.text)) problems.push(`#${i}: whitespace at an edge`);
    if (/^[\uDC00-\uDFFF]/.test(p.text) || /[\uD800-\uDBFF]$/.test(p.text))
      problems.push(`#${i}: splits a surrogate pair`);
    if (previous && (p.start <= previous.start || p.end <= previous.end)) problems.push(`#${i}: out of order`);
    covered[p.start]! += 1;
    covered[p.end]! -= 1;
    previous = p;
  }
  let depth = 0;
  for (let i = 0; i < content.length && problems.length < 5; i++) {
    depth += covered[i]!;
    if (depth <= 0 && !/\s/.test(content[i]!))
      problems.push(`offset ${i} (${JSON.stringify(content[i])}) is in no passage`);
  }
  expect(problems).toEqual([]);
}

/** `sentences` sentences of some 80 characters, each ending with 'free.'. */
const para = (sentences: number, seed = 0) =>
  Array.from(
    { length: sentences },
    (_, i) => `Sentence ${seed}-${i} says that orders ship within ${(i % 5) + 1} days and returns are free.`,
  ).join(' ');

describe('splitPassages', () => {
  test('empty and whitespace-only content gives no passages', () => {
    expect(splitPassages('')).toEqual([]);
    expect(splitPassages('  \n\t\r\n \u00a0\n')).toEqual([]);
  });

  test('a short entry is one trimmed passage', () => {
    const content = '\n\n  Returns are free.  \n\n';
    expect(splitPassages(content)).toEqual([{ start: 4, end: 21, text: 'Returns are free.', headings: [] }]);
  });

  test('the heading path follows ATX and setext headings, closing hashes and levels', () => {
    const content = [
      'Intro before any heading.',
      '',
      '# Shipping',
      '',
      'We ship worldwide.',
      '',
      '## Returns ##',
      '',
      'Return within 30 days.',
      '',
      '### Damaged items',
      '',
      'Send a photo.',
      '',
      'Exchanges',
      '---------',
      '',
      'Exchanges are possible.',
      '',
      'Payment',
      '=======',
      '',
      'We take cards.',
    ].join('\n');
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages.map((p) => [p.headings, p.text])).toEqual([
      [[], 'Intro before any heading.'],
      [['Shipping'], '# Shipping\n\nWe ship worldwide.'],
      [['Shipping', 'Returns'], '## Returns ##\n\nReturn within 30 days.'],
      [['Shipping', 'Returns', 'Damaged items'], '### Damaged items\n\nSend a photo.'],
      [['Shipping', 'Exchanges'], 'Exchanges\n---------\n\nExchanges are possible.'],
      [['Payment'], 'Payment\n=======\n\nWe take cards.'],
    ]);
  });

  test('a heading with nothing under it but a subsection goes into the subsection’s first passage', () => {
    const content = '# Shipping\n\n## Returns\n\nReturn within 30 days.\n\n# Empty\n\n# Payment\n\nCards.';
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages.map((p) => [p.headings, p.text])).toEqual([
      [['Shipping', 'Returns'], '# Shipping\n\n## Returns\n\nReturn within 30 days.'],
      [['Empty'], '# Empty'],
      [['Payment'], '# Payment\n\nCards.'],
    ]);
  });

  test('lines starting with # inside fenced code (with blank lines) are code, not headings', () => {
    const content = '# Setup\n\nRun this:\n\n```bash\n# install\n\nnpm ci\n\n## not a heading either\n```\n\nDone.';
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages).toHaveLength(1);
    expect(passages[0]!.headings).toEqual(['Setup']);
    expect(passages[0]!.text).toContain('## not a heading either\n```\n\nDone.');
  });

  test('a long fenced code block is cut at line breaks, and nothing inside it starts a section', () => {
    const code = Array.from({ length: 120 }, (_, i) => (i % 10 === 0 ? `# comment ${i}` : `const v${i} = ${i};`)).join(
      '\n',
    );
    const content = `## Code\n\n\`\`\`ts\n${code}\n\n\n${code}\n\`\`\``;
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages.length).toBeGreaterThan(2);
    for (const p of passages) {
      expect(p.headings).toEqual(['Code']);
      expect(p.start === 0 || content[p.start - 1] === '\n').toBe(true);
      expect(p.end === content.length || content[p.end] === '\n').toBe(true);
    }
  });

  test('blocks of one section are packed towards the target, never across sections', () => {
    const items = Array.from({ length: 60 }, (_, i) => `- Item ${i}: a short list entry about returns.`).join('\n');
    const content = `# A\n\n${items}\n\n# B\n\n${para(3)}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n> text`;
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    const inA = passages.filter((p) => p.headings[0] === 'A');
    const inB = passages.filter((p) => p.headings[0] === 'B');
    expect(inA.length).toBeGreaterThanOrEqual(3);
    expect(inA.slice(0, -1).every((p) => p.text.length >= 500 && p.text.length <= 1000)).toBe(true);
    expect(inB).toHaveLength(1);
    expect(inB[0]!.text.startsWith('# B') && inB[0]!.text.endsWith('> text')).toBe(true);
    // List items are whole: every passage of A starts at an item (or the heading) and ends at an item's end.
    for (const p of inA) {
      expect(p.text).toMatch(/^(# A|- Item \d+)/);
      expect(p.text).toMatch(/returns\.$/);
    }
  });

  test('a long paragraph is cut at sentence ends, and the next passage overlaps from a sentence start', () => {
    const content = `# Policy\n\n${para(60)}`;
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages.length).toBeGreaterThanOrEqual(5);
    for (const [i, p] of passages.entries()) {
      expect(p.text).toMatch(/free\.$/);
      if (i === 0) continue;
      expect(p.text).toMatch(/^Sentence /);
      const overlap = passages[i - 1]!.end - p.start;
      expect(overlap).toBeGreaterThan(0);
      expect(overlap).toBeLessThanOrEqual(150);
    }
  });

  test('a fact across a cut is whole in one of the two passages', () => {
    const content = para(40);
    const passages = splitPassages(content);
    const sentences = content.match(/Sentence [^.]+\./g)!;
    for (const sentence of sentences) expect(passages.some((p) => p.text.includes(sentence))).toBe(true);
  });

  test('a tiny last fragment joins the passage before it', () => {
    const content = `${para(11)}\n\nThe end.`;
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages[passages.length - 1]!.text.endsWith('\n\nThe end.')).toBe(true);
    expect(passages.every((p) => p.text.length >= 200)).toBe(true);
  });

  test('CRLF line endings give the same passages as LF', () => {
    const lf = `# Shipping\n\n${para(12)}\n\n## Returns\n\n- one\n- two\n\n\`\`\`\n# code\n\nx\n\`\`\`\n\nA | B\n--|--\n1 | 2\n`;
    const crlf = lf.replace(/\n/g, '\r\n');
    const fromLf = splitPassages(lf);
    const fromCrlf = splitPassages(crlf);
    expectValidPassages(crlf, fromCrlf);
    expect(fromCrlf.map((p) => [p.headings, p.text.replace(/\r\n/g, '\n')])).toEqual(
      fromLf.map((p) => [p.headings, p.text]),
    );
  });

  test('emoji and other surrogate pairs are never split, even by hard cuts', () => {
    for (const content of ['😀'.repeat(3000), `a${'😀'.repeat(3000)}`, `# 🚚 Versand\n\n${'🚚📦'.repeat(1500)} ende`]) {
      const passages = splitPassages(content);
      expectValidPassages(content, passages);
      expect(passages.length).toBeGreaterThan(1);
    }
    expect(splitPassages('# 🚚 Versand\n\ntext')[0]!.headings).toEqual(['🚚 Versand']);
  });

  test('one giant line without Markdown or whitespace is cut hard into passages of about the target', () => {
    const content = 'x'.repeat(100_000);
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages.length).toBe(125);
    expect(passages.every((p) => p.text.length === 800)).toBe(true);
  });

  test('a giant heading line and a giant setext heading are cut like any block, with a short title', () => {
    for (const content of [`# ${'Versand '.repeat(5000)}`, `${'Versand '.repeat(5000)}\n---\n\nBody.`]) {
      const passages = splitPassages(content);
      expectValidPassages(content, passages);
      expect(passages.length).toBeGreaterThan(40);
      expect(passages[0]!.headings).toHaveLength(1);
      expect(passages[0]!.headings[0]!.length).toBeLessThanOrEqual(200);
      expect(passages[0]!.headings[0]).toMatch(/^Versand( Versand)*$/);
    }
  });

  test('plain text with words but no sentence ends is cut at whitespace', () => {
    const content = 'word '.repeat(5000).trim();
    const passages = splitPassages(content);
    expectValidPassages(content, passages);
    expect(passages.every((p) => /^word( word)*$/.test(p.text))).toBe(true);
  });

  test('options change the target, the limit and the overlap', () => {
    const content = `# T\n\n${para(30)}`;
    const small = splitPassages(content, { targetChars: 200, maxChars: 300, overlapChars: 0 });
    expectValidPassages(content, small, 300);
    for (let i = 1; i < small.length; i++) expect(small[i]!.start).toBeGreaterThanOrEqual(small[i - 1]!.end);
    const big = splitPassages(content, { targetChars: 5000, maxChars: 5000 });
    expect(big).toHaveLength(1);
  });

  test('a 100,000-character entry splits within the limits, in linear time (no quadratic scan)', () => {
    const sections: string[] = [];
    for (let i = 0; sections.join('').length < 100_000; i++) {
      sections.push(
        `## Topic ${i}\n\n${para(1 + (i % 9), i)}\n\n- item ${i}\n- second item 😀\n  continued\n\n` +
          `\`\`\`js\n# not a heading\n\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | x |\n\n> quote ${i}\n\n`,
      );
    }
    const content = sections.join('').slice(0, 100_000);
    const plain = para(1300).slice(0, 100_000);
    for (const input of [content, plain]) {
      for (let i = 0; i < 3; i++) splitPassages(input); // warm-up
      const times: number[] = [];
      let passages: Passage[] = [];
      for (let i = 0; i < 9; i++) {
        const started = process.hrtime.bigint();
        passages = splitPassages(input);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      times.sort((a, b) => a - b);
      // A guard against a quadratic scan (seconds on 100,000 characters), not a speed target: the
      // median is ~3 ms on a quiet machine and went past 50 ms on a loaded one. Speed is measured
      // by the benchmark, never by a timed unit test.
      expect(times[4]).toBeLessThan(500);
      expectValidPassages(input, passages);
      expect(passages.length).toBeGreaterThan(100);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Properties over generated Markdown

const word = fc.oneof(
  {
    arbitrary: fc.constantFrom('returns', 'Versand', 'item', 'größe', '😀', 'a', 'e.g.', '42', 'ok.', 'Why?'),
    weight: 40,
  },
  { arbitrary: fc.constantFrom('x'.repeat(1300), '😀'.repeat(700)), weight: 1 },
);
const sentence = fc.array(word, { minLength: 1, maxLength: 25 }).map((words) => `${words.join(' ')}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 12 }).map((s) => s.join(' '));
const title = fc.constantFrom('Shipping', 'Returns', 'Größen & Maße', 'FAQ 😀', 'x');

type Piece = { text: string; heading?: { level: number; title: string } };
const block: fc.Arbitrary<Piece> = fc.oneof(
  fc
    .record({ level: fc.integer({ min: 1, max: 6 }), title })
    .map((h) => ({ text: `${'#'.repeat(h.level)} ${h.title}`, heading: h })),
  paragraph.map((text) => ({ text })),
  fc.array(paragraph, { minLength: 1, maxLength: 8 }).map((items) => ({ text: items.map((p) => `- ${p}`).join('\n') })),
  fc
    .array(paragraph, { minLength: 1, maxLength: 3 })
    .map((items) => ({ text: items.map((p) => `> ${p}`).join('\n>\n') })),
  fc
    .array(paragraph, { minLength: 1, maxLength: 5 })
    .map((rows) => ({ text: `| a | b |\n|---|---|\n${rows.map((r) => `| ${r} | 1 |`).join('\n')}` })),
  fc.array(paragraph, { minLength: 1, maxLength: 6 }).map((lines) => ({ text: `    ${lines.join('\n\n    ')}` })),
);
const codeBlock: fc.Arbitrary<Piece> = fc
  .array(fc.oneof(paragraph, fc.constantFrom('# comment', '', '## heading-like', '   ')), {
    minLength: 1,
    maxLength: 12,
  })
  .map((lines) => ({ text: `\`\`\`sh\n${lines.join('\n')}\n\`\`\`` }));
const separator = fc.constantFrom('\n\n', '\n', '\r\n\r\n', '\n \t\n', '\r\r', '\n\n\n');
const options = fc.record(
  {
    targetChars: fc.integer({ min: 1, max: 1500 }),
    maxChars: fc.integer({ min: 1, max: 2000 }),
    overlapChars: fc.integer({ min: 0, max: 400 }),
  },
  { requiredKeys: [] },
);

describe('splitPassages on generated Markdown', () => {
  test('every split is exact, within the limit, trimmed, ordered and covers all content', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(block, codeBlock), separator), { maxLength: 25, size: 'max' }),
        fc.constantFrom('', '  ', '\n', '\ufeff'),
        options,
        (pieces, lead, opts) => {
          const content = lead + pieces.map(([piece, sep]) => piece.text + sep).join('');
          const maxChars = Math.max(2, opts.maxChars ?? MAX_PASSAGE_CHARS);
          expectValidPassages(content, splitPassages(content, opts), maxChars);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('any mix of Markdown punctuation, line breaks and surrogates splits validly', () => {
    const char = fc.constantFrom(
      '#',
      '-',
      '=',
      '*',
      '>',
      '|',
      '`',
      '~',
      '_',
      ' ',
      '\t',
      '\n',
      '\r',
      '.',
      '1',
      'a',
      'Ä',
      '😀',
      '\u00a0',
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 3000, size: 'max' }), options, (chars, opts) => {
        const content = chars.join('');
        expectValidPassages(content, splitPassages(content, opts), Math.max(2, opts.maxChars ?? MAX_PASSAGE_CHARS));
      }),
      { numRuns: 300 },
    );
  });

  test('each passage carries the path of the headings before its end', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(block, fc.constantFrom('\n\n', '\r\n\r\n', '\n')), { maxLength: 25, size: 'max' }),
        (pieces) => {
          let content = '';
          const headings: { offset: number; level: number; title: string }[] = [];
          for (const [piece, sep] of pieces) {
            // A heading right after a paragraph line would be fine too, but keep one block per piece.
            if (piece.heading) headings.push({ offset: content.length, ...piece.heading });
            content += piece.text + (piece.heading ? '\n\n' : sep === '\n' ? '\n\n' : sep);
          }
          const passages = splitPassages(content);
          expectValidPassages(content, passages);
          for (const p of passages) {
            const path: { level: number; title: string }[] = [];
            for (const h of headings) {
              if (h.offset >= p.end) break;
              while (path.length > 0 && path[path.length - 1]!.level >= h.level) path.pop();
              path.push(h);
            }
            expect(p.headings).toEqual(path.map((h) => h.title));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('sentencesOf', () => {
  test('when a passage has sentences, list items and a heading, then each sentence is one piece and short pieces join the next', () => {
    const text =
      '## Delivery\nParcels arrive three to five working days after they leave the warehouse. ' +
      'Express parcels ordered by 11 am arrive the next day! Yes.\n- Tracking links come by email within the hour.';
    expect(sentencesOf(text)).toEqual([
      '## Delivery Parcels arrive three to five working days after they leave the warehouse.',
      'Express parcels ordered by 11 am arrive the next day!',
      'Yes. - Tracking links come by email within the hour.',
    ]);
  });

  test('when text has no sentence ends, then pieces are at most 400 characters and keep every word', () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    const pieces = sentencesOf(words.join(' '));
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(400);
    expect(pieces.join(' ').split(' ')).toEqual(words);
  });

  test('when text is blank, then there are no sentences', () => {
    expect(sentencesOf('   \n ')).toEqual([]);
  });
});

describe('cutPassages', () => {
  const content = '# Returns\n\nParcels may be returned within 30 days.\n\nRefunds reach the card in five days.';

  test('when passages are cut, then each text is the content between its offsets, at most count of them, in the order given', () => {
    const ranked = splitPassages(content, { targetChars: 40, maxChars: 60, overlapChars: 0 })
      .map((p, i) => ({ start: p.start, end: p.end, score: 1 / (i + 1) }))
      .reverse();
    expect(ranked.length).toBeGreaterThan(1);
    const cut = cutPassages(content, ranked, 'refund', 'en', 1);
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ start: ranked[0]!.start, end: ranked[0]!.end, score: ranked[0]!.score });
    for (const p of cutPassages(content, ranked, 'refund', 'en', 5)) expect(p.text).toBe(content.slice(p.start, p.end));
    expect(cutPassages(content, ranked, 'refund', 'en', 0)).toEqual([]);
  });

  test("when the query's words are in a passage, then they are marked by offsets inside its text (stems match)", () => {
    const start = content.indexOf('Refunds');
    const [p] = cutPassages(content, [{ start, end: content.length, score: 1 }], 'refund card', 'en', 1);
    const marked = p!.highlights.map((h) => p!.text.slice(h.start, h.end));
    expect(marked).toEqual(['Refunds', 'card']);
  });
});
