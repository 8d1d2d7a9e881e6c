// Where a person's profile card lives: other screens (grids, pickers, search
// hits) link a user to personHref(id); the card is a console screen at
// /people/<id> (routes/people/PersonCard.svelte), loaded on demand.
export function personHref(userId: string): string {
  return `/people/${encodeURIComponent(userId)}`;
}
