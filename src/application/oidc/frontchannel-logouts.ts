/**
 * The front-channel logout pages (OpenID Connect Front-Channel Logout 1.0) owed to the browser
 * whose gateway session just ended: written when the session ends, taken by the answer that
 * ended it (the logout page or RP-initiated logout), which loads them in hidden frames. Kept a few
 * minutes; shared by every replica where the store is.
 */
export interface FrontchannelLogouts {
  put(sessionId: string, urls: readonly string[]): Promise<void>;
  /** The pages owed for session `sessionId`, forgotten as they are read. */
  take(sessionId: string): Promise<string[]>;
}

/** Reads the front-channel logout pages of a session that ended; none when the store cannot say (the back channel still tells the apps). */
export class TakeFrontchannelLogoutsUseCase {
  constructor(private readonly pages: FrontchannelLogouts) {}

  async execute(sessionId: string): Promise<string[]> {
    try {
      return await this.pages.take(sessionId);
    } catch {
      return [];
    }
  }
}
