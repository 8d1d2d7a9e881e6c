// Extra entries of the user menu's account section (between "My profile"
// and the language switch). Screens that the console gains later — changing
// the own password, preferences stored on the server — register their link
// here; the menu shows exactly what is listed, so there are no dead entries.
import type { TextKey } from '../../i18n/index.svelte';

export type AccountLink = { href: string; label: TextKey };

export const accountLinks: AccountLink[] = [];
