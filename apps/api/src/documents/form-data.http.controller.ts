import { Controller, Get, Param } from '@nestjs/common';
import { Auth, AuthContext } from '../shared/auth.guard';
import { DocumentAccess } from './document-access.service';
import { formDataOf } from './form-data';
import { FormDataResponse } from '../openapi/response-schemas';

/** The values a document's signatures recorded (its form data), for the sender and auditors. */
@Controller('documents/:id')
export class FormDataHttpController {
  constructor(private readonly docs: DocumentAccess) {}

  @Get('form_data')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<FormDataResponse> {
    return formDataOf(await this.docs.row(auth, id));
  }
}
