/** Path data of shapes (inside a circle) that tell the states apart without color: check, cross, slash, clock. */
export const icons = {
  paid: 'm7 12.5 3.5 3.5L17 9',
  failed: 'm8 8 8 8m0-8-8 8',
  cancelled: 'M5 19 19 5',
  expired: 'M12 6v6l4 2',
};
