// The otpauth:// URL of a two-factor set-up as a QR code, drawn on the server as SVG (no script, no
// third party sees the secret) and handed to the page as a data URL, which the CSP's img-src allows.
// uqr has no dependencies (qrcode brought yargs and its tree into production).
import { renderSVG } from "uqr";

export async function qrDataUrl(text: string): Promise<string> {
  const svg = renderSVG(text, { ecc: "M", border: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}
