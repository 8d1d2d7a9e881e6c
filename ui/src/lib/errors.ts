// API errors in words: what the console shows for a refusal. The API's
// messages are specific but English; in another language a sentence for the
// error's code comes first and the API's message follows in brackets.
import { ApiError } from './api/client';
import { i18n, t, type TextKey } from './i18n/index.svelte';

const leads: Record<string, TextKey> = {
  VALIDATION_ERROR: 'error.code.validation',
  UNAUTHORIZED: 'error.code.unauthorized',
  FORBIDDEN: 'error.code.forbidden',
  NOT_FOUND: 'error.code.notFound',
  CONFLICT: 'error.code.conflict',
  PAYLOAD_TOO_LARGE: 'error.code.tooLarge',
  LICENSE_READ_ONLY: 'error.code.readOnly',
  RATE_LIMITED: 'error.code.rateLimited',
  UNAVAILABLE: 'error.code.unavailable',
  INTERNAL: 'error.code.internal',
};

/** A sentence for any error thrown by an API call. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const lead = leads[err.code];
    if (!err.message) return lead ? t(lead) : t('error.generic', { message: err.code });
    if (i18n.lang === 'en' || !lead) return err.message;
    return `${t(lead)} (${err.message})`;
  }
  if (err instanceof TypeError) return t('error.network');
  return t('error.generic', { message: err instanceof Error ? err.message : String(err) });
}
