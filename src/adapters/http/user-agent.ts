import { lazyModule } from '../system/lazy-module';

// bowser is loaded with the first account page, not at start-up.
const bowser = lazyModule(() => require('bowser') as typeof import('bowser'));

/** What a person recognises a device by: "Chrome 130", "Linux". Empty strings when the User-Agent says nothing usable. */
export interface DeviceDescription {
  readonly browser: string;
  readonly platform: string;
}

/** Reads a User-Agent for display only (it is whatever the client claimed); never throws. */
export function describeUserAgent(userAgent: string): DeviceDescription {
  if (userAgent.trim() === '') return { browser: '', platform: '' };
  try {
    const parsed = bowser().parse(userAgent);
    const major = (parsed.browser.version ?? '').split('.')[0];
    const browser = [parsed.browser.name ?? '', major].filter((x) => x !== '').join(' ');
    const platform = [parsed.os.name ?? '', parsed.os.versionName ?? parsed.os.version ?? ''].filter((x) => x !== '').join(' ');
    return { browser, platform };
  } catch {
    return { browser: '', platform: '' };
  }
}
