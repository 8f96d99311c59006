import type { UserInput } from "../protocol/index.js";
import type { ContentBlock } from "../vendor/acp.js";

/**
 * An ACP prompt as a turn's input. Text is text; an image is an image (as a data URL); a resource
 * link is a mention of it (`[@name](uri)`); an embedded resource, the editor's copy of a file
 * (an unsaved buffer, a selection), is its text in a `<context>` block after the mention, so the
 * model sees what the editor shows. Audio and binary resources are offered by no capability, and
 * are left out.
 */
export function promptInput(blocks: readonly ContentBlock[]): UserInput[] {
  const parts: UserInput[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: block.text });
        break;
      case "image":
        parts.push({ type: "image", url: block.uri && !block.data ? block.uri : `data:${block.mimeType};base64,${block.data}` });
        break;
      case "resource_link":
        parts.push({ type: "text", text: mention(block.name, block.uri) });
        break;
      case "resource":
        if ("text" in block.resource) {
          const { uri, text } = block.resource;
          parts.push({ type: "text", text: `${mention(nameOf(uri), uri)}\n<context ref="${attribute(uri)}">\n${unclosing(text)}\n</context>` });
        }
        break;
      default:
        break;
    }
  }
  return parts;
}

/** A URI as an attribute value: a quote or a line break in it cannot end the attribute early. */
function attribute(uri: string): string {
  return uri.replace(/[&"<>\r\n]/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * A file's text that cannot end its `<context>` block: the file may be the model's (or a
 * repository's), and a `</context>` in it would make what follows read as the user's own words.
 */
function unclosing(text: string): string {
  return text.replace(/<\/(context)/gi, "<\\/$1");
}

function mention(name: string, uri: string): string {
  return `[@${name}](${uri})`;
}

/** A resource's name: the last part of its URI's path. */
function nameOf(uri: string): string {
  const path = uri.replace(/[?#].*$/, "").replace(/\/+$/, "");
  const last = path.slice(path.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(last) || uri;
  } catch {
    // Not percent-encoded text (a stray `%`): the name as it is written.
    return last || uri;
  }
}
