import type { AppContext, UserContext } from './api';
import { h } from './dom';

/** What every page gets: the global app context, the current user and the query of the page. */
export interface PageContext {
  readonly root: HTMLElement;
  readonly app: AppContext;
  readonly user: UserContext;
  readonly params: URLSearchParams;
  /** The `redirect_uri` this visit carries, or null. */
  readonly redirectUri: string | null;
}

type Child = Node | string | null | undefined | false;

/** Fills the card: the brand line (app title), the page heading, then the page's content. */
export function render(ctx: Pick<PageContext, 'root' | 'app'>, heading: string, ...children: Child[]): void {
  document.title = heading === ctx.app.title ? heading : `${heading} · ${ctx.app.title}`;
  const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.getAttribute('href') ?? '';
  ctx.root.replaceChildren(
    h('header', { class: 'brand' }, icon !== '' && h('img', { src: icon, alt: '', width: '28', height: '28' }), h('span', {}, ctx.app.title)),
    h('h1', { id: 'page-heading', tabindex: '-1' }, heading),
    ...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false),
  );
  ctx.root.setAttribute('aria-busy', 'false');
  ctx.root.setAttribute('aria-labelledby', 'page-heading');
}

/** An automatic hop (the back button should not return to it). */
export function replaceWith(path: string): void {
  location.replace(path);
}

/** A hop the person asked for. */
export function goTo(path: string): void {
  location.assign(path);
}

/** A link that looks like a secondary action, placed under a form or a message. */
export function actions(...links: Child[]): HTMLElement {
  return h('p', { class: 'actions' }, ...links);
}
