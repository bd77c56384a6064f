import { csrfTokenOf } from "../../server/dashboard-csrf.ts";
import { route } from "../../server/http/route.ts";
import { actorOf } from "../../services/context.ts";
import { HomePage } from "../../views/home.tsx";

export const GET = route({
  access: "authenticated",
  summary: "Overview",
  html: true,
  handler: ({ ctx, request }) => {
    const actor = actorOf(ctx);
    return <HomePage email={actor.email} role={actor.role} csrf={csrfTokenOf(request)} />;
  },
});
