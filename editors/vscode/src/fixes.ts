// The server's quick fixes come from repair plans; each title ends in its
// safety: "Change `scord` to `scored` [safe]". A fix that widens the
// capsule's authority is applied only after the user confirms it. Pure.

export type Safety = 'safe' | 'review' | 'expands-authority';

export interface ParsedFix {
  /** The title without the safety tag. */
  label: string;
  safety: Safety | undefined;
}

const tag = /\s*\[(safe|review|expands-authority)\]\s*$/;

export function parseFixTitle(title: string): ParsedFix {
  const m = tag.exec(title);
  if (!m) return { label: title, safety: undefined };
  return { label: title.slice(0, m.index), safety: m[1] as Safety };
}

/** The confirmation to ask before applying a fix, or undefined to apply it directly. */
export function confirmationFor(title: string): string | undefined {
  const { label, safety } = parseFixTitle(title);
  if (safety !== 'expands-authority') return undefined;
  return `This repair widens what the capsule is allowed to do: ${label}. Apply it?`;
}
