// npm run mail -- list | show <id>
// What the sandbox mail server and SMS relay received under DATA_DIR (the platform may be running): newest first.
import { resolve } from "node:path";
import { sandboxMailbox } from "./embedded";

const [command, id] = process.argv.slice(2);
const box = sandboxMailbox(resolve(process.env.DATA_DIR ?? ".data"));
if (command === "list" && id === undefined) {
  for (const message of box.list()) {
    const about = message.channel === "email" ? message.subject : message.text.slice(0, 60);
    console.log(
      `${message.id}  ${message.received_at}  ${message.channel.padEnd(5)}  ${message.to.join(", ")}  ${about}`,
    );
  }
} else if (command === "show" && id !== undefined) {
  const message = box.show(id);
  if (!message) {
    console.error(`no message ${id}`);
    process.exit(1);
  }
  console.log(message.raw ?? `To: ${message.to.join(", ")}\nDate: ${message.received_at}\n\n${message.text}`);
} else {
  console.error("usage: npm run mail -- list | show <id>");
  process.exit(2);
}
