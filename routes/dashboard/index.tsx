import { pageInfo } from "../../server/dashboard-page.ts";
import { route } from "../../server/http/route.ts";
import { HomePage } from "../../views/home.tsx";

export const GET = route({
  access: "authenticated",
  summary: "Overview",
  html: true,
  handler: async ({ ctx, request }) => <HomePage page={await pageInfo(ctx, request)} />,
});
