/**
 * The server's markdown as plain text for a terminal (`warrant …` when stdout is a TTY): the
 * escapes that keep user text inert in markdown (`ref\_1`) would only be noise there. Backslash
 * escapes become their character, code and strong markers go, `#` heading marks go, a link
 * becomes `text <url>`. Control characters other than tab and newline are dropped, so nothing a
 * user wrote can reach the terminal as an escape sequence. Fenced blocks keep their lines.
 */
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|<>~=]/;

function plainLine(line: string): string {
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const next = line[i + 1];
    if (c === '\\' && next !== undefined && ESCAPABLE.test(next)) {
      out += next;
      i++;
    } else if (c === '`') {
      // a code span's marker: the words stay
    } else if (c === '*' && next === '*') {
      i++;
    } else if (c === '[') {
      const link = /^\[([^\]\\]*(?:\\.[^\]\\]*)*)\]\(([^)\s]+)\)/.exec(line.slice(i));
      if (link) {
        out += `${plainLine(link[1]!)} <${link[2]}>`;
        i += link[0].length - 1;
      } else out += c;
    } else out += c;
  }
  return out;
}

export function markdownToPlainText(markdown: string): string {
  let fenced = false;
  return markdown
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return null;
      }
      if (fenced) return line;
      return plainLine(line.replace(/^#{1,6}\s+/, ''));
    })
    .filter((line): line is string => line !== null)
    .join('\n');
}
