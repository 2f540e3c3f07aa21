import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsDefined, IsIn, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { TemplateFieldDto } from '../templates/template.dto';
import { EDIT_ACTIONS, EditAction, EditLocale } from '@dojang/application';

/** POST /documents/{id}/edit_session and POST /templates/{id}/edit_session. */
export class CreateEditSessionDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...EDIT_ACTIONS] },
    description: 'What the editor offers besides placing fields: save (default), send (documents only: sends the draft as POST …/send does) and preview (shows the page as a chosen role or participant will see it). At least one.',
  })
  @IsOptional() @IsArray() @ArrayUnique() @ArrayMaxSize(3) @IsIn([...EDIT_ACTIONS], { each: true })
  actions?: EditAction[];

  @ApiPropertyOptional({
    type: 'string',
    format: 'uri',
    maxLength: 2048,
    description: 'https URL the editor frame goes to after save, send or cancel, with ?dojang_event=saved|sent|cancelled&document_id=… (or template_id=…&template_version=…). Without it the editor only posts its events to the parent window.',
  })
  @IsOptional() @IsString() @MaxLength(2048) redirect_url?: string;

  @ApiPropertyOptional({ enum: ['ko', 'en'], description: 'The editor\'s language (default ko).' })
  @IsOptional() @IsIn(['ko', 'en']) locale?: EditLocale;
}

/** What the editor saves for a template: its fields, as PATCH /templates/{id} takes them. */
export class EditorTemplateFieldsDto {
  @ApiProperty({ type: () => [TemplateFieldDto], maxItems: 500 })
  @IsDefined() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => TemplateFieldDto)
  fields: TemplateFieldDto[];
}
