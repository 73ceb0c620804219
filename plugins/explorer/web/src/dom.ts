/** A tiny element builder: text always goes in as text (never HTML), so API data cannot inject markup. */
type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function') node.addEventListener(key.replace(/^on/, ''), value)
    else if (key === 'className') node.className = String(value)
    else node.setAttribute(key, value === true ? '' : String(value))
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    node.append(typeof child === 'object' ? child : String(child))
  }
  return node
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id)
  if (node === null) throw new Error(`the page has no #${id}`)
  return node as T
}

export function clear(node: Element, ...children: Child[]): void {
  node.replaceChildren()
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    node.append(typeof child === 'object' ? child : String(child))
  }
}

export const formatCount = (n: number): string => n.toLocaleString('en-US')
