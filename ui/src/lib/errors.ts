// API errors in words: what the console shows for a refusal.
import { ApiError } from './api/client';
import { t } from './i18n/index.svelte';

/** A sentence for any error thrown by an API call. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.message || t('error.generic', { message: err.code });
  if (err instanceof TypeError) return t('error.network');
  return t('error.generic', { message: err instanceof Error ? err.message : String(err) });
}
