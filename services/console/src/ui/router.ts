// Hash routing: `/console#/memories/<id>?tab=history`. The gateway serves one page, and the
// part after `#` never reaches a server, a proxy's log or a Referer header.
import { useEffect, useState } from "preact/hooks";
import { type QueryValue, withQuery } from "./api-client.ts";

export type Route = {
  /** The path's segments, decoded: `#/keys/deploy%2Ftarget` → ["keys", "deploy/target"]. */
  segments: string[];
  query: URLSearchParams;
};

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, "");
  const at = text.indexOf("?");
  const path = at < 0 ? text : text.slice(0, at);
  const segments = path
    .split("/")
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: new URLSearchParams(at < 0 ? "" : text.slice(at + 1)) };
}

/** The link to a console page: `href(["memories", id])` → `#/memories/<id>`. */
export function href(segments: readonly string[], query: Record<string, QueryValue> = {}): string {
  return `#${withQuery(`/${segments.map(encodeURIComponent).join("/")}`, query)}`;
}

export function navigate(segments: readonly string[], query: Record<string, QueryValue> = {}): void {
  const target = href(segments, query);
  if (window.location.hash !== target) window.location.hash = target;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
