/**
 * Tickets for overlapping loads of one screen: each load takes a ticket and
 * applies its answer only while its ticket is still the latest, so a slow
 * earlier answer never overwrites what a later query asked for.
 */
export function latestOnly(): () => () => boolean {
  let issued = 0;
  return () => {
    const mine = ++issued;
    return () => mine === issued;
  };
}
