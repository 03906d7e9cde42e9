import { AppError, type Caller, requireCaller, requireScope, type Scope } from '@kb/platform';

/** The caller of a request, checked for the scope the operation needs. */
export function callerWith(caller: Caller | null | undefined, scope: Scope): Caller {
  const c = requireCaller(caller);
  requireScope(c, scope);
  return c;
}

export function notFound(what: 'Category' | 'Tenant' | 'Entry'): AppError {
  return AppError.notFound(`${what} not found`);
}
