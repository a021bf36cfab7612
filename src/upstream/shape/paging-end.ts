/** The explicit "no next page" marker shared by the paging readers. */

/** Marks an explicit "no next page" (a null next URL, an empty cursor); a symbol, so no cursor can collide with it. */
export const END: unique symbol = Symbol('end of list');

/** The type of {@link END}. */
export type End = typeof END;
