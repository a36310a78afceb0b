// Building DOM from recording data safely: text always goes in through textContent
// (command lines and process names can hold anything, "<script>" included), attributes
// through setAttribute. Nothing here ever parses HTML.

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value == null || value === false) continue;
    if (key === 'className') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child == null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

export function byTestId(id, root = document) {
  return root.querySelector(`[data-testid="${id}"]`);
}

// Sets the text of the cells of a recycled row, creating them on first use: rows of the
// virtual lists are reused for other items as the user scrolls.
export function fillCells(row, texts, classNames) {
  if (row.childElementCount !== texts.length) {
    row.replaceChildren(...texts.map((_, i) => el('span', { className: classNames[i] || '' })));
  }
  for (let i = 0; i < texts.length; i++) {
    const cell = row.children[i];
    const text = texts[i] == null ? '' : String(texts[i]);
    if (cell.textContent !== text) cell.textContent = text;
  }
}

export function debounce(fn, ms) {
  let timer = null;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}
