import { Type } from '@sinclair/typebox';
import { ConfigError, INDEXING_SERVICE_SETTINGS, LogLevel, loadConfig, createLogger } from '@kb/platform';
import { connectMongo } from '../src/connection';

// Settings that may carry a secret: a configuration error names them and says what they must be,
// and the message (written to stderr and the logs) never carries the value or a part of it.
const PASSWORD = 's3cret-Pa55';

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('no ConfigError was thrown');
}

describe('configuration errors name the setting, never its value', () => {
  const Schema = Type.Object({ LOG_LEVEL: LogLevel, ...INDEXING_SERVICE_SETTINGS });

  test('when MONGODB_URI does not look like a connection string, then the error names it and hides the value', () => {
    const err = configError(() => loadConfig(Schema, { MONGODB_URI: `http://kb:${PASSWORD}@db:27017/kb` }));
    expect(err.message).toBe(
      "invalid configuration: MONGODB_URI expected string to match '^mongodb(\\+srv)?://' (value not shown)",
    );
    expect(err.message).not.toContain(PASSWORD);
    expect(err.message).not.toContain('db:27017');
  });

  test('when a setting is not one of its allowed values, then the error lists them and hides the value', () => {
    const err = configError(() =>
      loadConfig(Schema, { MONGODB_URI: 'mongodb://db/kb', LOG_LEVEL: PASSWORD, INDEXER_INTERVAL_MS: PASSWORD }),
    );
    expect(err.problems).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (value not shown)',
      'INDEXER_INTERVAL_MS expected integer (value not shown)',
    ]);
    expect(err.message).not.toContain(PASSWORD);
  });

  test.each([
    ['an unescaped character in the password', `mongodb://kb:${PASSWORD}:x@db/kb`],
    ['a port out of range', `mongodb://kb:${PASSWORD}@db:99999/kb`],
    ['an option with a bad value', `mongodb://kb:${PASSWORD}@db/kb?tls=${PASSWORD}`],
    ['no host', `mongodb://kb:${PASSWORD}@/kb`],
  ])(
    'when MONGODB_URI passes the schema but the driver cannot parse it (%s), then the service stops naming the setting, not its value',
    (_what, uri) => {
      // The schema lets these through (they start with mongodb://); the connection is never opened.
      expect(loadConfig(Schema, { MONGODB_URI: uri }).MONGODB_URI).toBe(uri);
      const err = configError(() => connectMongo(uri, createLogger('test', 'silent')));
      expect(err.message).toMatch(
        /^invalid configuration: MONGODB_URI is not a connection string the MongoDB driver can parse \(value not shown\)/,
      );
      expect(err.message).not.toContain(PASSWORD);
      expect(err.message).not.toContain('db');
    },
  );
});
