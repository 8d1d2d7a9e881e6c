// Row windowing for long tables: only the rows in (and near) the scroll
// container's viewport are rendered; spacer rows keep the scroll height.
// Rows have one height (the grid's CSS fixes it); the rendered height of a row
// is read back on scroll and resize, so borders and zoom do not make the
// spacers drift.
export class Windowing {
  scrollTop = $state(0);
  viewport = $state(600);

  rowHeight = $state(40);

  constructor(rowHeight: number, readonly overscan = 5) {
    this.rowHeight = rowHeight;
  }

  private measure(el: HTMLElement): void {
    const row = el.querySelector('tbody tr:not(.spacer)');
    const h = row?.getBoundingClientRect().height;
    if (h && Math.abs(h - this.rowHeight) > 0.5) this.rowHeight = h;
  }

  /** The rows to render of count, and the heights of the spacers around them. */
  range(count: number): { start: number; end: number; before: number; after: number } {
    const first = Math.floor(this.scrollTop / this.rowHeight);
    const start = Math.max(0, first - this.overscan);
    const end = Math.min(count, first + Math.ceil(this.viewport / this.rowHeight) + this.overscan);
    return { start, end, before: start * this.rowHeight, after: Math.max(0, count - end) * this.rowHeight };
  }

  /** Attaches to the scroll container (a Svelte attachment). */
  attach = (el: HTMLElement) => {
    const onScroll = () => {
      this.measure(el);
      this.scrollTop = el.scrollTop;
    };
    const ro = new ResizeObserver(() => {
      this.measure(el);
      this.viewport = el.clientHeight || 600;
    });
    el.addEventListener('scroll', onScroll, { passive: true });
    ro.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
    };
  };
}
