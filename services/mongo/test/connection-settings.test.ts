/**
 * The MONGODB_* settings (@kb/platform MONGODB_SETTINGS) and the driver options they become
 * (connection.ts): defaults for a replica set that also work on a standalone server, and a bad
 * value stopping the service with the variable named, never its value.
 */
import { Type } from '@sinclair/typebox';
import { ConfigError, MONGODB_SETTINGS, loadConfig } from '@kb/platform';
import { DEFAULT_MONGO_SETTINGS, clientOptionsOf, mongoSettingsOf } from '../src/connection';

const schema = Type.Object(MONGODB_SETTINGS);
const URI = { MONGODB_URI: 'mongodb://127.0.0.1:27017/kb' };
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(schema, { ...URI, ...env });
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('the MongoDB connection settings', () => {
  test('when no MONGODB_* variable is set, then the defaults are majority writes and reads from the primary, 20 connections, 3 s', () => {
    const settings = mongoSettingsOf(loadConfig(schema, URI));
    expect(settings).toEqual(DEFAULT_MONGO_SETTINGS);
    expect(clientOptionsOf(settings)).toEqual({
      bufferCommands: false,
      maxPoolSize: 20,
      serverSelectionTimeoutMS: 3000,
      writeConcern: { w: 'majority' },
      readConcern: { level: 'majority' },
      readPreference: 'primary',
    });
  });

  test('when the variables are set, then the driver gets them (a member count as a number)', () => {
    const env = {
      ...URI,
      MONGODB_MAX_POOL_SIZE: '50',
      MONGODB_WRITE_CONCERN: '2',
      MONGODB_READ_CONCERN: 'local',
      MONGODB_READ_PREFERENCE: 'secondaryPreferred',
      MONGODB_SERVER_SELECTION_TIMEOUT_MS: '10000',
    };
    expect(clientOptionsOf(mongoSettingsOf(loadConfig(schema, env)))).toEqual({
      bufferCommands: false,
      maxPoolSize: 50,
      serverSelectionTimeoutMS: 10000,
      writeConcern: { w: 2 },
      readConcern: { level: 'local' },
      readPreference: 'secondaryPreferred',
    });
  });

  test.each([
    ['MONGODB_WRITE_CONCERN', '0', /MONGODB_WRITE_CONCERN must be `majority` or a number of members/],
    ['MONGODB_WRITE_CONCERN', 'all', /MONGODB_WRITE_CONCERN must be/],
    ['MONGODB_READ_CONCERN', 'snapshot', /MONGODB_READ_CONCERN must be one of majority, local/],
    ['MONGODB_READ_PREFERENCE', 'secondary-ish', /MONGODB_READ_PREFERENCE must be one of primary, primaryPreferred/],
    ['MONGODB_MAX_POOL_SIZE', '0', /MONGODB_MAX_POOL_SIZE .*1/],
    ['MONGODB_SERVER_SELECTION_TIMEOUT_MS', 'soon', /MONGODB_SERVER_SELECTION_TIMEOUT_MS expected integer/],
  ])('when %s is %j, then the service stops naming the variable, not the value', (name, value, message) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toEqual([expect.stringMatching(message)]);
    expect(problems[0]).toContain('(value not shown)');
  });
});
