import { embeddingTexts, flatten } from '../src/domain/index-document';

const base = {
  title: 'Chair',
  description: 'Oak.',
  short_description: 'Sturdy',
  properties: { size: { h: 90 } },
  attributes: { colours: ['red', 'blue'] },
  embedding_text_description: null,
  embedding_text_properties: null,
  embedding_text_attributes: null,
};

describe('embedding texts', () => {
  test('when no embedding_text_* is given, then each text is the title plus its field', () => {
    expect(embeddingTexts(base)).toEqual({
      description: 'Chair\nSturdy\nOak.',
      properties: 'Chair\nsize.h: 90',
      attributes: 'Chair\ncolours: red, blue',
    });
  });

  test('when embedding_text_properties is given, then it replaces only the properties text', () => {
    const t = embeddingTexts({ ...base, embedding_text_properties: 'explicit' });
    expect(t.properties).toBe('explicit');
    expect(t.description).toBe('Chair\nSturdy\nOak.');
  });

  test('when an explicit text is blank, then the generated one is used', () => {
    expect(embeddingTexts({ ...base, embedding_text_description: '  ' }).description).toBe('Chair\nSturdy\nOak.');
  });

  test('when a value is empty or null, then flatten leaves it out', () => {
    expect(flatten({ a: '', b: null, c: 0 })).toEqual(['c: 0']);
  });
});
