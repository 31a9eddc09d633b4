import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kind } from '../../../src/shared/kind-types.js';
import { ALICE, BOB, CAROL, dbTargets, useTestServer } from '../../helpers/server.js';
import { readZip, type ZipFile } from './zip-reader.js';
import { readZipAsStream } from './stream-reader.js';
import { excelDateCell } from '../../../src/shared/excel-dates.js';
import * as XLSX from 'xlsx';

/**
 * A package read both ways: through its central directory, and front to back from local headers
 * alone as Java's and Android's ZipInputStream read it. Both must give the same files.
 */
function readZipBothWays(bytes: Buffer): ZipFile[] {
  const files = readZip(bytes);
  const streamed = readZipAsStream(bytes);
  expect(streamed.map((e) => [e.name, e.bytes.toString('base64')])).toEqual(files.map((f) => [f.name, f.bytes.toString('base64')]));
  // The workbooks inside are ZIPs too, and must stream as well.
  for (const e of streamed) if (e.name.endsWith('.xlsx')) expect(readZipAsStream(e.bytes).length).toBeGreaterThan(0);
  return files;
}
import { create, DAY, download, folderOf, headerOf, jsonError, kindOf, putFile, randomFile, readBook, sha256, sheetRows } from './fixtures.js';

type Rec = Record<string, unknown>;

describe.each(dbTargets())('day packages on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let bob: string;
  /** Records of the day that Alice's packages must hold (hers and Carol's: same project), per kind. */
  const expected: Record<string, Rec[]> = { drive: [], charging: [], issue: [], poi: [] };
  /** Ids per kind that must never appear in Alice's packages (Bob's project). */
  const foreign: Record<string, Set<number>> = { drive: new Set(), charging: new Set(), issue: new Set(), poi: new Set() };
  /** Attachment path in the ZIP -> sha256 of its bytes. */
  const attachments = new Map<string, string>();
  let otherPoi: Rec;

  beforeAll(async () => {
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
    const carol = await s.login(CAROL.username, CAROL.password);
    const [drive, charging, issue, poi] = ['drive', 'charging', 'issue', 'poi'].map((n) => kindOf(s, n)) as [Kind, Kind, Kind, Kind];
    const mine = async (kind: Kind, token: string, body: Rec): Promise<void> => {
      expected[kind.name]!.push(await create(s, kind, token, body));
    };

    await mine(drive, alice, { driveDate: `${DAY} 00:00:00`, travelTime: 42.5, travelDistance: 30.25, driver: 'Alice 张', startLocation: 'Depot' });
    await mine(drive, carol, { driveDate: `${DAY} 23:59:59`, travelDistance: 12.1 });
    await mine(drive, alice, { driveDate: `${DAY} 09:15:00` }); // every other column blank
    await create(s, drive, alice, { driveDate: '2026-11-20 23:59:59', travelDistance: 999 });
    await mine(charging, alice, {
      chargeDate: `${DAY} 10:00:00`,
      initialRange: 100,
      endRange: 250.5,
      remark: JSON.stringify({ connectors: [{ type: 'CCS2', power: '150', total: '1' }] }),
    });
    await mine(charging, alice, { chargeDate: `${DAY} 18:00:00`, chargeType: 'AC' });
    for (const [i, token] of [alice, alice, alice].entries()) {
      await mine(issue, token, {
        issueDate: `${DAY} 00:00:00`,
        issueStartTime: `${DAY} ${String(8 + i).padStart(2, '0')}:30:00`,
        issueTitle: `Issue ${i}`,
        relatedFilesJson: 'uploaded',
      });
    }
    await mine(poi, alice, { reportTime: `${DAY} 07:00:00`, title: 'Tunnel entrance', tag1: 'Tunnel', relatedFilesJson: 'x', taskId: 'T1' });
    await mine(poi, alice, { reportTime: `${DAY} 16:45:00`, title: 'Bridge' });
    otherPoi = await create(s, poi, alice, { reportTime: '2026-11-19 12:00:00', title: 'Two days before' });
    await create(s, poi, alice, { reportTime: '2026-11-25 12:00:00', title: 'After the range' });

    // Bob's project has records of the same day, and an issue whose folder has a file.
    for (const kind of [drive, charging, issue, poi]) {
      const rec = await create(s, kind, bob, {
        [kind.meta.dateField]: `${DAY} 11:00:00`,
        ...(kind.name === 'issue' ? { issueStartTime: `${DAY} 08:30:00` } : {}),
      });
      foreign[kind.name]!.add(rec['id'] as number);
      if (kind.name === 'issue') await putFile(s, BOB.project, `${folderOf(rec)}/bob-secret.jpg`, randomFile(1000));
    }

    // Attachments of the first two issues, one in a subfolder; the third has none.
    const [first, second] = expected['issue'] as [Rec, Rec];
    const files: [Rec, string, Buffer][] = [
      [first, 'photo.jpg', randomFile(300_000)],
      [first, 'notes/readme.txt', Buffer.from('road works at km 12\n')],
      [second, 'clip.webm', randomFile(70_000)],
      [second, '录音 1.webm', randomFile(5_000)],
    ];
    for (const [rec, name, bytes] of files) {
      await putFile(s, ALICE.project, `${folderOf(rec)}/${name}`, bytes);
      attachments.set(`attachments/${folderOf(rec).split('/').pop()}/${name}`, sha256(bytes));
    }
    // A file of an issue of another day, in the same project: not part of this day's package.
    await putFile(s, ALICE.project, `issue_records/20261120/V1/Issue_999_20261120-080000/old.jpg`, randomFile(100));
  });

  async function zipOf(path: string, name: string): Promise<ZipFile[]> {
    const d = await download(s, path, alice);
    expect(d.status, d.bytes.toString('utf8').slice(0, 200)).toBe(200);
    expect(d.headers.get('content-type')).toBe('application/zip');
    expect(d.headers.get('content-disposition')).toContain(`filename="${name}"`);
    return readZipBothWays(d.bytes);
  }

  /** Checks the JSON and the workbook of a package against the records it must hold. */
  function checkRecords(files: ZipFile[], stem: string, kind: Kind, records: Rec[], sheet: string): void {
    const json = files.find((f) => f.name === `${stem}.json`);
    const xlsx = files.find((f) => f.name === `${stem}.xlsx`);
    expect(json && xlsx, files.map((f) => f.name).join(', ')).toBeTruthy();
    const rows = JSON.parse(json!.bytes.toString('utf8')) as Rec[];
    const exported = (r: Rec): Rec => Object.fromEntries(kind.exportFields.filter((f) => f in r).map((f) => [f, r[f]]));
    const sortKey = (r: Rec): string => `${r[kind.meta.dateField]} ${String(r['id']).padStart(9, '0')}`;
    expect(rows).toEqual([...records].sort((a, b) => sortKey(a).localeCompare(sortKey(b))).map(exported));
    for (const row of rows) expect(foreign[kind.name]!.has(row['id'] as number)).toBe(false);

    const table = sheetRows(readBook(xlsx!.bytes), sheet);
    expect(table[0]).toEqual(headerOf(kind));
    expect(table.length - 1).toBe(records.length);
    // Every cell is the record's value in the column's field, blank where the record has none.
    table.slice(1).forEach((cells, i) => {
      kind.exportFields.forEach((field, col) => {
        // Dates and times are Excel dates: the serial number of the record's wall-clock time.
        const value = rows[i]![field];
        const expected = excelDateCell(value, kind.schema.properties[field]?.format)?.v ?? value;
        expect(cells[col], `${kind.name} row ${i} ${field}`).toEqual(expected);
      });
    });
  }

  it('packs the day of each kind as JSON and a workbook, with no other project and no other day', async () => {
    const cases: [string, string, string][] = [
      ['download_JourneysFiles', 'drive', 'Journeys'],
      ['download_ChargingsFiles', 'charging', 'Chargings'],
      ['download_POIsFiles', 'poi', 'POIs'],
    ];
    for (const [route, kindName, label] of cases) {
      const stem = `P1_V1_${DAY}_${label}`;
      const files = await zipOf(`/download/${route}?vehicle=V1&date=${encodeURIComponent(`${DAY} 00:00:00`)}&project=P1`, `${stem}.zip`);
      expect(files.map((f) => f.name).sort()).toEqual([`${stem}.json`, `${stem}.xlsx`]);
      checkRecords(files, stem, kindOf(s, kindName), expected[kindName]!, label);
    }
    // A ZIP is compressed already: the server's response compression leaves it alone.
    const raw = await fetch(`${s.url}/download/download_JourneysFiles?date=${DAY}`, {
      headers: { authorization: `Bearer ${alice}`, 'accept-encoding': 'gzip, br' },
    });
    expect(raw.headers.get('content-encoding')).toBeNull();
    expect(readZipBothWays(Buffer.from(await raw.arrayBuffer()))).toHaveLength(2);
    // x-export: false fields stay out of packages.
    const poiJson = (await zipOf(`/download/download_POIsFiles?date=${DAY}`, `P1_V1_${DAY}_POIs.zip`))[0]!.bytes.toString('utf8');
    expect(poiJson).toContain('Tunnel entrance');
    expect(poiJson).not.toContain('relatedFilesJson');
    expect(poiJson).not.toContain('taskId');
  });

  it("packs the day's issues with every attachment file, byte for byte, in a folder per issue", async () => {
    const stem = `P1_V1_${DAY}_Issues`;
    const files = await zipOf(`/download/download_IssueFiles?vehicle=V1&date=${DAY}&project=P1`, `${stem}.zip`);
    checkRecords(files, stem, kindOf(s, 'issue'), expected['issue']!, 'Issues');
    const inZip = new Map(files.filter((f) => f.name.startsWith('attachments/')).map((f) => [f.name, sha256(f.bytes)]));
    expect(inZip).toEqual(attachments);
    expect(files.some((f) => f.name.includes('bob-secret') || f.name.includes('old.jpg'))).toBe(false);
  });

  it('packs the POIs of a date range for the POI list', async () => {
    const stem = `P1_V1_2026-11-19_to_${DAY}_POIs`;
    const files = await zipOf(`/download/download_POIsFiles_a?vehicle=V1&date=2026-11-19&date2=${DAY}&project=P1`, `${stem}.zip`);
    checkRecords(files, stem, kindOf(s, 'poi'), [otherPoi, ...expected['poi']!], 'POIs');
    const reversed = await download(s, `/download/download_POIsFiles_a?date=${DAY}&date2=2026-11-19`, alice);
    expect(reversed.status).toBe(400);
    expect(jsonError(reversed).msg).toBe(`date2 (2026-11-19) is before date (${DAY}); give the start in date and the end in date2`);
    const none = await download(s, '/download/download_POIsFiles_a?date=2026-11-22&date2=2026-11-24', alice);
    expect(jsonError(none)).toEqual({ code: 404, msg: 'No POI data available for 2026-11-22 to 2026-11-24', data: null });
  });

  it("makes the day's Excel report with one sheet per kind", async () => {
    const d = await download(s, `/download/generate_excel?vehicle=V1&date=${encodeURIComponent(`${DAY} 00:00:00`)}&project=P1`, alice);
    expect(d.status).toBe(200);
    expect(d.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(d.headers.get('content-disposition')).toContain(`filename="P1_V1_${DAY}_Report.xlsx"`);
    const book = readBook(d.bytes);
    expect(book.SheetNames).toEqual(['Journeys', 'Chargings', 'Issues', 'POIs']);
    for (const [sheet, kindName] of [
      ['Journeys', 'drive'],
      ['Chargings', 'charging'],
      ['Issues', 'issue'],
      ['POIs', 'poi'],
    ] as const) {
      const kind = kindOf(s, kindName);
      const table = sheetRows(book, sheet);
      expect(table[0]).toEqual(headerOf(kind));
      const ids = table.slice(1).map((row) => row[kind.exportFields.indexOf('id')]);
      expect(ids.sort()).toEqual(expected[kindName]!.map((r) => r['id']).sort());
    }
  });

  it('answers a day with nothing to download with a JSON 404 that names the kind and the day', async () => {
    for (const [route, noun] of [
      ['download_JourneysFiles', 'Journey'],
      ['download_ChargingsFiles', 'Charging'],
      ['download_IssueFiles', 'Issue'],
      ['download_POIsFiles', 'POI'],
    ]) {
      const d = await download(s, `/download/${route}?vehicle=V1&date=2026-11-22%2000:00:00&project=P1`, alice);
      expect(d.status).toBe(404);
      expect(jsonError(d)).toEqual({ code: 404, msg: `No ${noun} data available for 2026-11-22`, data: null });
    }
    const report = await download(s, '/download/generate_excel?date=2026-11-22', alice);
    expect(report.status).toBe(404);
    expect(jsonError(report).msg).toBe('No data available for 2026-11-22');
  });

  it('writes dates as Excel dates with a display format, numbers as numbers, and formula-like text as text', async () => {
    const issue = kindOf(s, 'issue');
    await create(s, issue, alice, {
      issueDate: '2026-11-24',
      issueStartTime: '2026-11-24 08:05:09',
      issueTitle: '=HYPERLINK("http://x","y")',
      faultMileage: 1520.5,
    });
    const report = await download(s, '/download/generate_excel?date=2026-11-24', alice);
    expect(report.status).toBe(200);
    const book = XLSX.read(report.bytes, { type: 'buffer', cellNF: true, cellFormula: true });
    const sheet = book.Sheets[book.SheetNames.find((n) => /issue/i.test(n)) ?? ''] as XLSX.WorkSheet;
    const header = (XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1 })[0] ?? []) as string[];
    const at = (title: string) => sheet[XLSX.utils.encode_cell({ r: 1, c: header.indexOf(title) })] as XLSX.CellObject;
    // A date stored without a time is shown as a date.
    expect(at('Issue Date')).toMatchObject({ t: 'n', v: 46350, z: 'yyyy-mm-dd' });
    const start = at('Start Time');
    expect(start.t).toBe('n');
    expect(start.z).toBe('yyyy-mm-dd hh:mm:ss');
    expect(XLSX.SSF.format(start.z as string, start.v as number)).toBe('2026-11-24 08:05:09');
    expect(at('Fault Mileage (km)')).toMatchObject({ t: 'n', v: 1520.5 });
    const title = at('Title');
    expect(title).toMatchObject({ t: 's', v: '=HYPERLINK("http://x","y")' });
    expect(title.f).toBeUndefined();
  });

  it("gives another project's user only that project's records", async () => {
    const d = await download(s, `/download/download_IssueFiles?vehicle=V2&date=${DAY}&project=P2`, bob);
    expect(d.status).toBe(200);
    const files = readZipBothWays(d.bytes);
    const json = JSON.parse(files.find((f) => f.name.endsWith('.json'))!.bytes.toString('utf8')) as Rec[];
    expect(json.map((r) => r['id'])).toEqual([...foreign['issue']!]);
    expect(json[0]).toMatchObject({ projectName: 'P2', vehicleNo: 'V2' });
    expect(files.map((f) => f.name).filter((n) => n.startsWith('attachments/'))).toEqual([expect.stringMatching(/\/bob-secret\.jpg$/)]);
  });

  it('streams a day larger than one database page, rows with the same time included, in order', async () => {
    const day = '2026-11-23';
    const now = new Date().toISOString();
    const n = 2500;
    const rows = Array.from({ length: n }, (_, i) => {
      // Three distinct times only: paging must not skip or repeat rows that share one.
      const time = `${day} 0${i % 3}:00:00`;
      return {
        project_name: 'P1',
        vehicle_no: 'V1',
        record_date: time,
        data: JSON.stringify({ driveDate: time, travelDistance: i }),
        version: 1,
        created_at: now,
        created_by: 'seed',
        updated_at: now,
        updated_by: 'seed',
      };
    });
    for (let i = 0; i < n; i += 500)
      await s.app.db.kysely
        .insertInto('rec_drive')
        .values(rows.slice(i, i + 500))
        .execute();

    const d = await download(s, `/download/download_JourneysFiles?date=${day}`, alice);
    expect(d.status).toBe(200);
    const files = readZipBothWays(d.bytes);
    const json = JSON.parse(files.find((f) => f.name.endsWith('.json'))!.bytes.toString('utf8')) as Rec[];
    expect(json).toHaveLength(n);
    const keys = json.map((r) => `${r['driveDate']} ${String(r['id']).padStart(9, '0')}`);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(json.map((r) => r['travelDistance'])).size).toBe(n);
    const table = sheetRows(readBook(files.find((f) => f.name.endsWith('.xlsx'))!.bytes), 'Journeys');
    expect(table).toHaveLength(n + 1);

    // A client that goes away mid-download leaves the server serving others. (node:http, not
    // fetch: an aborted fetch leaves a spare keep-alive socket that would hold the server open.)
    await new Promise<void>((resolve) => {
      const req = http.get(`${s.url}/download/download_JourneysFiles?date=${day}`, { headers: { authorization: `Bearer ${alice}` } }, (res) => {
        res.once('data', () => req.destroy());
        res.on('close', () => resolve());
      });
      req.on('error', () => resolve());
    });
    // Alice's slot (DOWNLOADS_PER_USER) comes back as soon as the server has seen the connection close.
    await expect.poll(async () => (await download(s, `/download/download_JourneysFiles?date=${DAY}`, alice)).status, { timeout: 5_000 }).toBe(200);
  });
});
