/**
 * The demo's last words: commands that work as written where the demo ran. `simulate
 * --with-github` serves the simulator on 8080 and the stand-in on 8081 with the token
 * ghp_standin, which is where the example config (config/threatbridge.yaml) points by default;
 * the variables below are the simulator's client and the stand-in's token.
 */

/** Where the demo runs, which decides how the user types the next commands. */
export type Place =
  /** A checkout after `npm run build`: `node dist/cli.js`, from the checkout's root. */
  | { kind: "checkout"; root: string; here: boolean }
  /** An installed package: `threatbridge` on the PATH (a global install) or `npx threatbridge`. */
  | { kind: "installed"; command: "threatbridge" | "npx threatbridge" }
  /** The container image (its ENTRYPOINT is the CLI, its working directory holds the example config). */
  | { kind: "image" };

const CREDENTIALS = [
  "PLATFORM_CLIENT_ID=threatbridge",
  "PLATFORM_CLIENT_SECRET=threatbridge-secret",
  "GITHUB_TOKEN=ghp_standin",
];
const SERVE = "simulate --with-github --threats 10";

export function closingHint(place: Place): string {
  switch (place.kind) {
    case "checkout": {
      const where = place.here ? "from this directory" : `from ${place.root}`;
      return (
        `Done. Now run it yourself against both fakes, ${where}: ` +
        `\`node dist/cli.js ${SERVE}\` in one terminal, then ` +
        `\`${CREDENTIALS.join(" ")} node dist/cli.js sync\` in another.`
      );
    }
    case "installed":
      return (
        "Done. Now run it yourself against both fakes, from a directory of your choice: " +
        `\`${place.command} init\` writes config/threatbridge.yaml there, ` +
        `\`${place.command} ${SERVE}\` serves both fakes in one terminal, then ` +
        `\`${CREDENTIALS.join(" ")} ${place.command} sync\` in another, from the same directory.`
      );
    case "image":
      return (
        "Done. Now run it yourself against both fakes, with the image you ran this demo from " +
        "(IMAGE below: its name, e.g. threatbridge as the README builds it): " +
        `\`docker run --rm --name threatbridge-fakes IMAGE ${SERVE}\` in one terminal, then ` +
        `\`docker exec ${CREDENTIALS.map((c) => `-e ${c}`).join(" ")} threatbridge-fakes node dist/cli.js sync\` ` +
        "in another: the image's config/threatbridge.yaml points at both fakes inside that container."
      );
  }
}
