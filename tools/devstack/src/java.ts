import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export interface Jdk {
  home: string;
  /** Path of bin/java. */
  java: string;
  /** Feature release, e.g. 17, 21, 25. */
  major: number;
}

/** The JDK for Elasticsearch 9 (needs 21+): ES_JAVA_HOME, else JAVA_HOME, else the newest found. */
export function findElasticsearchJdk(): Jdk {
  const explicit = process.env.ES_JAVA_HOME;
  if (explicit) {
    const jdk = inspect(explicit);
    // An explicit setting that does not work is a mistake to report, not to route around.
    if (!jdk || jdk.major < 21) {
      throw new Error(
        `ES_JAVA_HOME=${explicit} is ${jdk ? `Java ${jdk.major}` : 'not a Java installation'}; Elasticsearch 9 needs Java 21 or newer.`,
      );
    }
    return jdk;
  }
  return pick(21, 'Elasticsearch 9 (set ES_JAVA_HOME to a JDK 21+)');
}

/** Any Java 17+ for the MongoDB-compatible server: JAVA_HOME, else `java` on PATH, else the newest found. */
export function findJava17(): Jdk {
  return pick(17, 'the MongoDB-compatible server (set JAVA_HOME to a JDK 17+)');
}

function pick(minMajor: number, purpose: string): Jdk {
  // What the user chose comes first; only then the newest installed one.
  for (const home of [process.env.JAVA_HOME, javaOnPath()]) {
    const jdk = home ? inspect(home) : undefined;
    if (jdk && jdk.major >= minMajor) return jdk;
  }
  const installed = installedJdks();
  const newest = installed.filter((j) => j.major >= minMajor).sort((a, b) => b.major - a.major)[0];
  if (newest) return newest;
  const seen = installed.length ? installed.map((j) => `Java ${j.major} at ${j.home}`).join(', ') : 'none';
  throw new Error(
    `No Java ${minMajor}+ found for ${purpose}. Found: ${seen} (looked at JAVA_HOME, java on PATH, ` +
      '/usr/lib/jvm, /Library/Java/JavaVirtualMachines). Install a JDK, or set MONGODB_URI and ELASTICSEARCH_URL.',
  );
}

function installedJdks(): Jdk[] {
  const homes = [process.env.JAVA_HOME, javaOnPath()];
  for (const root of ['/usr/lib/jvm', '/Library/Java/JavaVirtualMachines']) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root)) {
      const home = join(root, name);
      homes.push(existsSync(join(home, 'Contents', 'Home')) ? join(home, 'Contents', 'Home') : home);
    }
  }
  const byHome = new Map<string, Jdk>();
  for (const home of homes) {
    const jdk = home ? inspect(home) : undefined;
    if (jdk) byHome.set(jdk.home, jdk);
  }
  return [...byHome.values()];
}

function javaOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const java = join(dir, 'java');
    if (dir && existsSync(java)) return dirname(dirname(safeRealpath(java) ?? java));
  }
  return undefined;
}

/** Reads the JDK's `release` file; falls back to `java -version` for installs without one. */
function inspect(home: string): Jdk | undefined {
  const java = join(home, 'bin', 'java');
  if (!existsSync(java)) return undefined;
  let version: string | undefined;
  try {
    version = /^JAVA_VERSION="([^"]+)"/m.exec(readFileSync(join(home, 'release'), 'utf8'))?.[1];
  } catch {
    // `java -version` prints to stderr
    const out = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 10_000 });
    version = /version "([^"]+)"/.exec(`${out.stderr}${out.stdout}`)?.[1];
  }
  if (!version) return undefined;
  // "1.8.0_392" is Java 8; "17.0.15" is 17; "25" is 25.
  const parts = version.split(/[.+_-]/).map(Number);
  const major = parts[0] === 1 ? parts[1] : parts[0];
  return major ? { home: safeRealpath(home) ?? home, java, major } : undefined;
}

function safeRealpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}
