/* GENERATED - do not edit. Made from schemas/issue.schema.json by `npm run gen:types`. */

/**
 * A problem found during the road test.
 */
export interface IssueRecord {
  /**
   * ID (read-only)
   */
  id?: number;
  /**
   * Task ID
   */
  taskId?: string;
  /**
   * Issue No
   */
  issueNo?: string;
  /**
   * Issue Date
   */
  issueDate?: string;
  /**
   * Start Time
   */
  issueStartTime?: string;
  /**
   * End Time
   */
  issueEndTime?: string;
  /**
   * Project (read-only)
   */
  projectName?: string;
  /**
   * Vehicle No (read-only)
   */
  vehicleNo?: string;
  /**
   * Title
   */
  issueTitle?: string;
  /**
   * Description
   */
  issueDescription?: string;
  /**
   * Severity
   */
  issueSeverity?: 'A' | 'B' | 'C';
  /**
   * Source
   */
  issueSource?: string;
  /**
   * Category
   */
  issueCategory?:
    | 'Brakes'
    | 'Body'
    | 'Noise'
    | 'Chassis'
    | 'Powertrain'
    | 'Battery and charging'
    | 'Electrical'
    | 'Infotainment'
    | 'ADAS'
    | 'Climate'
    | 'Software'
    | 'Other';
  /**
   * Tester
   */
  tester?: string;
  /**
   * Frequency
   */
  issueFrequency?: string;
  /**
   * Country
   */
  country?:
    | 'UK'
    | 'Germany'
    | 'France'
    | 'Netherlands'
    | 'Belgium'
    | 'Spain'
    | 'Italy'
    | 'Norway'
    | 'Sweden'
    | 'China'
    | 'Other';
  /**
   * City
   */
  city?: string;
  /**
   * Address
   */
  address?: string;
  /**
   * Working Condition
   */
  workingCondition?: 'City' | 'Highway' | 'Rural' | 'Mountain' | 'Parking' | 'Charging' | 'Test track' | 'Other';
  /**
   * Weather
   */
  weather?: 'Sunny' | 'Cloudy' | 'Overcast' | 'Rain' | 'Snow' | 'Fog' | 'Other';
  /**
   * Fault Mileage (km)
   */
  faultMileage?: number;
  /**
   * Software Version
   */
  softwareVersion?: string;
  /**
   * Status
   */
  issueStatus?: string;
  /**
   * Project Stage
   */
  projectStage?: string;
  /**
   * Overseas Specific
   */
  isOverseasSpecific?: '是' | '否';
  /**
   * Domestic Verifiable
   */
  isDomesticVerifiable?: '是' | '否';
  /**
   * Longitude
   */
  lon?: number;
  /**
   * Latitude
   */
  lat?: number;
  /**
   * Temperature (°C)
   */
  temperature?: number;
  /**
   * Related Files
   */
  relatedFilesJson?: string;
  /**
   * Video Analysis Status (read-only)
   */
  videoAnalysisStatus?: 'READY' | 'DOING' | 'DONE' | 'FAILED';
  /**
   * Video Desensitization Status (read-only)
   */
  videoDesensitizationStatus?: 'READY' | 'DOING' | 'DONE' | 'FAILED';
  /**
   * AI Report (read-only)
   */
  aiVideoAnalysisReport?: string;
  /**
   * Attachment Folder (read-only)
   */
  attachmentFolder?: string;
}
