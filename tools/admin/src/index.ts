export { buildProgram, main, runAdmin, runCommandLine, type RunAdminOptions } from './cli';
export { CliError, UsageError, type AdminContext } from './context';
export { checkArchive, importTenant, LeaseLostError } from './tenant-archive';
