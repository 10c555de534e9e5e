import { useEffect, useState } from 'preact/hooks';

/** Hash routes (#/search?q=…): no server fallback needed, and the back button works. */
export interface Route {
  page: string;
  params: URLSearchParams;
}

function parse(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const [page = '', query = ''] = text.split('?');
  return { page: page || 'search', params: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parse(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function href(page: string, params: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') query.set(name, String(value));
  const text = query.toString();
  return `#/${page}${text ? `?${text}` : ''}`;
}

export function navigate(page: string, params: Record<string, string | number | undefined> = {}): void {
  location.hash = href(page, params);
}
