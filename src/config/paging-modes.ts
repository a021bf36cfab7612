/**
 * How the next page of a list is found (`upstream.shape.paging`, docs/upstream-shapes.md,
 * "Paging"): one list for the config schema (schema.ts) and the shape reader
 * (src/upstream/shape/options.ts), so a mode one knows the other knows too. `auto` tries
 * every known style in a fixed order.
 */
export const PAGING_MODES = ['auto', 'link', 'cursor', 'page', 'none'] as const;

/** One of {@link PAGING_MODES}. */
export type PagingMode = (typeof PAGING_MODES)[number];
