// Lint: typescript-eslint's recommended rules on every package's sources and tests; formatting
// is prettier's job (eslint-config-prettier turns off the rules that would fight it), except
// that no line may exceed 140 characters (max-len, re-enabled after prettier).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/** What only data-access (and @kb/mongo) may import. */
const storage = {
  group: ['mongoose', 'mongodb', '@kb/mongo'],
  message: 'MongoDB stays in data-access/ (plain domain types elsewhere; @kb/mongo is for data-access).',
};

/** What only data-access (and @kb/search) may import. */
const searchEngine = {
  group: ['@elastic/elasticsearch'],
  message: 'Elasticsearch stays in data-access/ and @kb/search (the domain calls them).',
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'services/platform/src/generated/**',
      'coverage/**',
      'bench-results/**',
      'eval-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        __filename: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-require-imports': 'off',
      // Sanitisers and terminal output match control characters on purpose.
      'no-control-regex': 'off',
      // A service's handles are declared before the closures that read them, assigned once after.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read arbitrary JSON answers; typing each one would say nothing the assertions do not.
    files: ['test/**', '**/test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The domain and gRPC layers and the gateway's HTTP layer reach MongoDB and Elasticsearch only
    // through data-access/ and @kb/search.
    files: ['services/*/src/domain/**', 'services/*/src/grpc/**', 'services/gateway/src/http/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [storage, searchEngine] }] },
  },
  {
    // The gateway, the similarity service and @kb/search never load mongoose (no MongoDB of theirs).
    files: ['services/gateway/src/**', 'services/similarity/src/**', 'services/search/src/**'],
    ignores: ['services/gateway/src/http/**', 'services/*/src/domain/**', 'services/*/src/grpc/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [storage] }] },
  },
  {
    // The other shared libraries stay apart from both backends; @kb/mongo from Elasticsearch.
    files: ['services/{platform,text,rules,indexing}/src/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [storage, searchEngine] }] },
  },
  {
    files: ['services/mongo/src/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [searchEngine] }] },
  },
  {
    files: ['services/*/src/grpc/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            storage,
            searchEngine,
            { group: ['**/data-access/*'], message: 'gRPC handlers call use cases (domain/).' },
          ],
        },
      ],
    },
  },
  prettier,
  {
    // After prettier (eslint-config-prettier turns max-len off): prettier wraps code at 120, and
    // what it cannot wrap (strings, comments, test names) must still stay within 140 characters.
    rules: { 'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
);
