import type { Command, CommanderError } from 'commander';
import { UsageError } from './context';
import { repeatable } from './options';

/** Help was asked for and shown (`--help`, `admin help …`): the run ends with this exit code. */
export class HelpShown extends Error {
  constructor(readonly exitCode: number) {
    super('help shown');
  }
}

/** The command and every command below it, depth first. */
export function everyCommand(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap((c) => everyCommand(c))];
}

/** The names from below the program down to `cmd`: ['token', 'create']. */
export function commandPath(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

/** One command's synopsis: `admin token revoke <token-id-or-prefix> --tenant <tenant-id>`, optional parts in brackets. */
export function synopsis(cmd: Command): string[] {
  const args = cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? ' ...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  const options = cmd.options.map((o) => {
    const flags = `${o.long ?? o.flags}${o.required || o.optional ? o.flags.slice(o.flags.indexOf(' ')) : ''}`;
    const more = repeatable.has(o) ? ' ...' : '';
    return o.mandatory ? `${flags}${more}` : `[${flags}${more}]`;
  });
  return ['admin', ...commandPath(cmd), ...args, ...options];
}

/** Words on lines of at most `width` characters, the lines after the first indented by `indent`. */
function wrap(words: string[], indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** Every command of the tree with its arguments and options: what `admin --help` ends with. */
export function treeHelp(program: Command, width = 118): string {
  const lines = ['Every command:'];
  for (const cmd of everyCommand(program)) {
    if (cmd.commands.length > 0) continue;
    const words = synopsis(cmd);
    const head = words.slice(0, 1 + commandPath(cmd).length).join(' ');
    lines.push(
      ...wrap([head, ...words.slice(1 + commandPath(cmd).length)], head.length + 3, width).map((l) => `  ${l}`),
    );
  }
  lines.push(
    '',
    'Each command has its own --help (e.g. admin token create --help).',
    'Environment: MONGODB_URI (default: the running `npm start` of this checkout),',
    "SIMILARITY_GRPC_ADDR (default: the running stack's similarity service, else its default address),",
    "SERVICE_SYSTEM_SECRET (the system credential reindex needs; default: the running stack's).",
    'Exit codes: 0 done, 1 failed, 2 usage error.',
  );
  return lines.join('\n');
}

const sentence = (message: string) => {
  const text = message.replace(/^error: /, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** What commander reports about a command line, as this CLI words it (its usage errors exit 2). */
export function fromCommander(err: CommanderError, cmd: Command): Error {
  const help = cmd.helpInformation();
  const path = commandPath(cmd).join(' ');
  switch (err.code) {
    case 'commander.helpDisplayed':
    case 'commander.help':
      return new HelpShown(err.exitCode === 0 ? 0 : 2);
    case 'commander.missingArgument':
    case 'commander.excessArguments': {
      const [first] = cmd.args.slice(cmd.registeredArguments.length);
      if (cmd.commands.length > 0)
        return new UsageError(`Unknown command "${[path, first].filter(Boolean).join(' ')}"`, help);
      const [only, ...others] = cmd.registeredArguments;
      if (only && others.length === 0 && only.required && !only.variadic)
        return new UsageError(`${path} takes exactly one <${only.name()}>`, help);
      if (err.code === 'commander.excessArguments' && first !== undefined)
        return new UsageError(`Unexpected argument "${first}"`, help);
      return new UsageError(sentence(err.message), help);
    }
    case 'commander.missingMandatoryOptionValue': {
      const flags = /'([^']+)'/.exec(err.message)?.[1];
      return new UsageError(flags ? `${flags} is required` : sentence(err.message), help);
    }
    default:
      return new UsageError(sentence(err.message), help);
  }
}
