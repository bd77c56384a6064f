// The otpauth:// URL of a two-factor set-up as a QR code, drawn on the server as SVG (no script, no
// third party sees the secret) and handed to the page as a data URL, which the CSP's img-src allows.
import QRCode from "qrcode";

export async function qrDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}
