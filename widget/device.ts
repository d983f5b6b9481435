const webviewMarkers = /; wv\)|FBAN|FBAV|Instagram|Line\/|MicroMessenger|GSA\//;

/** Whether to offer the pay button first: touch devices, narrow screens and in-app webviews. */
export function prefersButton(): boolean {
  // The screen, not the host: a narrow checkout column on a desktop still wants the QR.
  return matchMedia('(pointer: coarse)').matches || innerWidth < 600 || webviewMarkers.test(navigator.userAgent);
}
