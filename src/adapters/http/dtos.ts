import { IsBoolean, IsString, Length, validate, ValidateIf } from 'class-validator';

/** Body of `POST /api/login`; `username` is accepted as another name for `email`. */
export class LoginBody {
  @IsString()
  @Length(1, 320)
  email!: string;

  @IsString()
  @Length(1, 1024)
  password!: string;

  /** "Keep me signed in" (issue 33); absent means false, anything else but a boolean (null included) is refused. */
  @ValidateIf((body: LoginBody) => body.remember !== undefined)
  @IsBoolean()
  remember?: boolean;
}

/** Body of `POST /api/totp`. */
export class TotpBody {
  @IsString()
  @Length(1, 32)
  code!: string;
}

/**
 * Copies the expected fields of a parsed JSON body into a DTO and validates it.
 * Resolves the DTO, or the sorted names of the fields that are missing or wrong.
 */
export async function readBody<T extends object>(
  Dto: new () => T,
  body: unknown,
  fields: readonly (keyof T & string)[],
): Promise<{ ok: true; value: T } | { ok: false; fields: string[] }> {
  const dto = new Dto();
  const source = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  for (const field of fields) (dto as Record<string, unknown>)[field] = source[field];
  const errors = await validate(dto, { forbidUnknownValues: true });
  if (errors.length === 0) return { ok: true, value: dto };
  return { ok: false, fields: errors.map((e) => e.property).sort() };
}
