/** A tiny element builder: the CSP forbids inline script and style, so everything is built as DOM. */

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (typeof value === 'function') node.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) node.setAttribute(key, '');
    else if (typeof value === 'string') node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

/** A form field: label, input and a hint slot, tied together for assistive technology. */
export function field(id: string, label: string, input: Attrs): { wrapper: HTMLDivElement; input: HTMLInputElement } {
  const el = h('input', { id, name: id, ...input });
  return { wrapper: h('div', { class: 'field' }, h('label', { for: id }, label), el), input: el };
}

/** The message area of a form: announced when it changes, and linked to the inputs it is about. */
export function alertArea(id: string): HTMLParagraphElement {
  return h('p', { id, class: 'alert', role: 'alert', 'aria-live': 'assertive', hidden: true });
}

export function showAlert(area: HTMLElement, text: string, ...extra: Child[]): void {
  area.replaceChildren(text, ...extra.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
  area.hidden = false;
}

export function clearAlert(area: HTMLElement): void {
  area.replaceChildren();
  area.hidden = true;
}

/** Marks fields invalid (or valid again) and points them at the message that explains why. */
export function markInvalid(inputs: HTMLInputElement[], invalid: boolean, messageId: string): void {
  for (const input of inputs) {
    if (invalid) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', messageId);
    } else {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
    }
  }
}

/** Disables a submit button while a request runs and shows what is happening on it. */
export function busy(button: HTMLButtonElement, working: boolean, label: string): void {
  button.disabled = working;
  button.setAttribute('aria-busy', String(working));
  button.textContent = label;
}
