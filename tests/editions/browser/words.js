// Every word a browser renders under each root, in document order, with where it is drawn.
// tests/editions/browser/test_no_answer_on_screen.py reads it; see there for what it is for.
//
// options.roots: a CSS selector (JupyterLab's cells, the site's body), or "slides": each
//   slide of a reveal.js deck, shown in turn (a hidden slide renders nothing).
// options.scroller: the element that scrolls the page (JupyterLab's notebook), or null (the
//   window): each top and bottom is measured from the top of what it scrolls, not the screen.
//
// Returns {screen, roots: [{top, bottom, words: [[text, top, bottom, block, fold, place]]}]}:
// - text: the word and the white space after it (collapsed, as the browser draws it, except
//   in preformatted text);
// - block: a number, the same for the words of one block (a paragraph, a list item, a line of
//   code), so that the reader can put a line break between blocks;
// - fold: the word is in the body of a closed <details>: on the page, hidden until clicked;
// - place: on the site, the index of the code cell it is in (-1 outside code cells) or -2
//   outside the article (the navigation: the contents table, the page's headings); in a deck,
//   the id of the notebook cell it comes from; else null.
(options) => {
  const frame = options.scroller ? document.querySelector(options.scroller) : null;
  const origin = () => frame ? frame.scrollTop - frame.getBoundingClientRect().top : window.scrollY;
  const range = document.createRange();
  const blockIds = new Map();
  const styles = new Map();
  const style = (element) => {
    if (!styles.has(element)) styles.set(element, getComputedStyle(element));
    return styles.get(element);
  };
  const siteCells = [...document.querySelectorAll("article div.cell")];
  const folded = (element) => {
    for (let fold = element.closest("details"); fold; fold = fold.parentElement?.closest("details")) {
      const summary = fold.querySelector(":scope > summary");
      if (!fold.open && !(summary && summary.contains(element))) return true;
    }
    return false;
  };
  const place = (element) => {
    if (options.site) {
      const cell = element.closest("div.cell");
      if (cell) return siteCells.indexOf(cell);
      return element.closest("article") ? -1 : -2;
    }
    if (options.roots === "slides") {
      const cell = element.closest('[id^="cell-id="]');
      return cell ? cell.id.slice("cell-id=".length) : null;
    }
    return null;
  };
  const read = (root) => {
    const offset = origin();
    const box = root.getBoundingClientRect();
    const words = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest("script, style, template, noscript")) continue;
      range.selectNodeContents(node);
      if (range.getClientRects().length === 0) continue;  // not drawn (display: none)
      if (style(parent).visibility !== "visible") continue;
      let block = parent;
      while (block !== root && style(block).display.startsWith("inline")) block = block.parentElement;
      if (!blockIds.has(block)) blockIds.set(block, blockIds.size);
      const pre = /^(pre|break-spaces)/.test(style(parent).whiteSpace);
      const fold = folded(parent);
      const where = place(parent);
      for (const match of node.data.matchAll(pre ? /[^\n]*\n?/g : /\s*\S+\s*|\s+/g)) {
        if (!match[0]) continue;
        const start = match.index + Math.max(0, match[0].search(/\S/));
        const end = match.index + (match[0].trimEnd().length || match[0].length);
        range.setStart(node, start);
        range.setEnd(node, Math.max(end, start));
        const drawn = range.getBoundingClientRect();
        const text = pre ? match[0] : match[0].replace(/\s+/g, " ");
        words.push([text, drawn.top + offset, drawn.bottom + offset, blockIds.get(block), fold, where]);
      }
    }
    return {top: box.top + offset, bottom: box.bottom + offset, words};
  };
  if (options.roots === "slides") {
    return {screen: window.innerHeight, roots: Reveal.getSlides().map((slide) => {
      Reveal.slide(...Object.values(Reveal.getIndices(slide)));
      return read(slide);
    })};
  }
  return {screen: frame ? frame.clientHeight : window.innerHeight,
          roots: [...document.querySelectorAll(options.roots)].map(read)};
}
