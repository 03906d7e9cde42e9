/**
 * @kb/text: Text without a backend: passages cut along Markdown structure, sentences, text
 * analysis (stems, stop words, language detection), the kinds of answer a text states or asks for.
 */
export * from './answer-types';
export * from './passages';
export * from './text-analysis';
