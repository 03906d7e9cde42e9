import { spawn } from 'node:child_process';

/** How a command line tool ended, with everything it wrote. */
export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a tool to its end and collects its output; a non-zero exit is a result, not an error
 * (a check that expects a refusal reads it). A tool that is not installed rejects, saying so.
 */
export function runTool(
  command: string,
  args: string[],
  options: { cwd?: string; input?: string } = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error(`'${command}' is not installed`) : err),
    );
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input);
  });
}

/** A tool's standard output; a non-zero exit rejects with the command and the last lines it wrote to stderr. */
export async function toolOutput(
  command: string,
  args: string[],
  options: { cwd?: string; input?: string } = {},
): Promise<string> {
  const run = await runTool(command, args, options);
  if (run.code !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (exit ${run.code}): ${run.stderr.trim().split('\n').slice(-5).join('\n')}`,
    );
  return run.stdout;
}
