// One cleartext port for every client: gRPC clients open HTTP/2 with prior knowledge (h2c), while
// browsers, curl and fetch speak HTTP/1.1 for gRPC-Web and Connect. node:http2's cleartext server
// cannot answer HTTP/1.1 (allowHTTP1 needs TLS; a fetch fails under both Node 20 and Bun 1.4.5),
// so a plain TCP listener reads the first bytes and hands the socket to the HTTP/2 or the
// HTTP/1.1 server.
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from "node:http2";
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from "node:net";

export type RequestHandler = (
  request: IncomingMessage | Http2ServerRequest,
  response: ServerResponse | Http2ServerResponse,
) => void;

export interface CleartextListener {
  readonly port: number;
  /**
   * Stops taking connections: HTTP/2 sessions get GOAWAY (their open streams go on), idle
   * HTTP/1.1 connections close, busy ones close after their response.
   */
  stopAccepting(): void;
  /** Resolves once stopAccepting() was called and every connection has ended. */
  readonly closed: Promise<void>;
  /** Destroys every connection left; resolves when the port is released. */
  destroyAll(): Promise<void>;
}

const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
/** A connection that has not said which protocol it speaks within this time is dropped. */
const SNIFF_TIMEOUT_MS = 10_000;

export async function listenCleartext(
  host: string,
  port: number,
  handler: RequestHandler,
): Promise<CleartextListener> {
  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  const http2Sockets = new Set<Socket>();
  const busyHttp1Sockets = new Set<Socket>();
  let draining = false;

  const http2 = createHttp2Server(handler);
  http2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    if (draining) session.close();
  });

  const http1 = createHttp1Server((request, response) => {
    const socket = request.socket;
    busyHttp1Sockets.add(socket);
    // While draining, the client must not reuse this connection for another call.
    if (draining) response.setHeader("connection", "close");
    response.once("close", () => {
      busyHttp1Sockets.delete(socket);
      if (draining) socket.end();
    });
    handler(request, response);
  });

  const tcp = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      http2Sockets.delete(socket);
    });
    // A reset socket must not crash the process; the protocol servers see the same event.
    socket.on("error", () => {});
    socket.setTimeout(SNIFF_TIMEOUT_MS, () => socket.destroy());
    sniffProtocol(socket, (isHttp2) => {
      socket.setTimeout(0);
      if (isHttp2) http2Sockets.add(socket);
      (isHttp2 ? http2 : http1).emit("connection", socket);
    });
  });
  await listen(tcp, host, port);
  // net.Server emits "close" once it stopped listening and its last connection ended.
  const closed = new Promise<void>((resolve) => tcp.once("close", () => resolve()));

  const stopAccepting = () => {
    if (draining) return;
    draining = true;
    tcp.close();
    for (const session of sessions) session.close();
    // HTTP/2 sockets close themselves once their GOAWAY'd sessions finish their streams.
    for (const socket of sockets) {
      if (!busyHttp1Sockets.has(socket) && !http2Sockets.has(socket)) socket.destroy();
    }
  };

  return {
    port: (tcp.address() as AddressInfo).port,
    closed,
    stopAccepting,
    async destroyAll() {
      stopAccepting();
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** Reads until the bytes either match the HTTP/2 preface in full or stop matching it. */
function sniffProtocol(socket: Socket, decided: (isHttp2: boolean) => void): void {
  const chunks: Buffer[] = [];
  const onReadable = () => {
    for (let chunk: Buffer | null = socket.read(); chunk !== null; chunk = socket.read()) chunks.push(chunk);
    const head = Buffer.concat(chunks);
    const compared = Math.min(head.length, HTTP2_PREFACE.length);
    const matches = head.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
    if (head.length === 0 || (matches && head.length < HTTP2_PREFACE.length)) return;
    socket.off("readable", onReadable);
    socket.unshift(head);
    decided(matches);
  };
  socket.on("readable", onReadable);
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
