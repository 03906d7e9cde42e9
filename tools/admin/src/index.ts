export { buildProgram, main, runAdmin, runCommandLine, type RunAdminOptions } from './cli';
export { CliError, UsageError, type AdminContext } from './context';
