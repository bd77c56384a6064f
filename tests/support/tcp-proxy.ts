// A TCP proxy a test can cut and restore, to play a dependency (PostgreSQL) going away under a running
// platform: cut() closes every connection and stops listening, so new connections are refused;
// restore() listens on the same port again. blackhole() plays a silent partition instead: connections
// stay open and new ones are accepted, but nothing is forwarded either way until restore() (then what
// was held is delivered, as TCP would once the path is back).
import type { Socket, TCPSocketListener } from "bun";

interface Pipe {
  peer?: Socket<Pipe> | undefined;
  /** Bytes not yet written to this socket (back-pressure). */
  backlog: Uint8Array[];
}

export interface TcpProxy {
  port: number;
  cut(): void;
  /** Holds every byte and every new connection until restore(): TCP open, nothing answering. */
  blackhole(): void;
  restore(): void;
  stop(): void;
}

function send(socket: Socket<Pipe>, chunk: Uint8Array) {
  if (socket.data.backlog.length > 0) {
    socket.data.backlog.push(chunk);
    return;
  }
  const written = socket.write(chunk);
  if (written < chunk.length) socket.data.backlog.push(chunk.subarray(Math.max(0, written)));
}

function drain(socket: Socket<Pipe>) {
  while (socket.data.backlog.length > 0) {
    const chunk = socket.data.backlog[0] as Uint8Array;
    const written = socket.write(chunk);
    if (written < chunk.length) {
      socket.data.backlog[0] = chunk.subarray(Math.max(0, written));
      return;
    }
    socket.data.backlog.shift();
  }
}

export function startTcpProxy(target: { hostname: string; port: number }): TcpProxy {
  const open = new Set<Socket<Pipe>>();
  let port = 0;
  let listener: TCPSocketListener<Pipe> | undefined;
  let holding: (() => void)[] | undefined;
  const forward = (to: Socket<Pipe>, chunk: Uint8Array) => {
    if (holding) holding.push(() => send(to, chunk));
    else send(to, chunk);
  };
  const listen = () => {
    listener = Bun.listen<Pipe>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          client.data = { backlog: [] };
          open.add(client);
          if (holding) holding.push(() => connectUpstream(client));
          else connectUpstream(client);
        },
        data(client, chunk) {
          if (client.data.peer) forward(client.data.peer, chunk);
          else client.data.backlog.push(chunk);
        },
        drain,
        close(client) {
          open.delete(client);
          client.data.peer?.end();
        },
      },
    });
    port = listener.port;
  };
  const connectUpstream = (client: Socket<Pipe>) => {
    Bun.connect<Pipe>({
      ...target,
      socket: {
        open(upstream) {
          upstream.data = { backlog: [], peer: client };
          open.add(upstream);
          client.data.peer = upstream;
          for (const chunk of client.data.backlog.splice(0)) send(upstream, chunk);
        },
        data: (_upstream, chunk) => forward(client, chunk),
        drain,
        close(upstream) {
          open.delete(upstream);
          client.end();
        },
        error: () => {
          client.end();
        },
      },
    }).catch(() => client.end());
  };
  listen();
  return {
    get port() {
      return port;
    },
    blackhole() {
      holding ??= [];
    },
    cut() {
      holding = undefined;
      listener?.stop(true);
      listener = undefined;
      for (const socket of open) socket.terminate();
      open.clear();
    },
    restore() {
      const held = holding ?? [];
      holding = undefined;
      for (const action of held) action();
      if (!listener) listen();
    },
    stop() {
      this.cut();
    },
  };
}
