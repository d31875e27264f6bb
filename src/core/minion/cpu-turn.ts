/**
 * Turns for CPU work shared by every Minion in this process (the bench runs a thousand): each turn
 * is a separate event-loop iteration, so sockets are served between two minions' RSA work.
 */
let turnTail: Promise<void> = Promise.resolve();
export function cpuTurn(): Promise<void> {
  const turn = turnTail.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  turnTail = turn;
  return turn;
}
